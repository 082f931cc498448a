// placeholder replaced below
export class ProcessPool { constructor(_o: unknown) {} async run(_r: unknown): Promise<any> { throw new Error('no pool'); } async close() {} }
