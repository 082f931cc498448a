/** The `Deno` object the shim installed, for parts that add members to it (FsFile, Deno.test...). */
let namespace: Record<string, unknown> | undefined;

export function setDenoNamespace(deno: Record<string, unknown>): void {
  namespace = deno;
}

export function denoNamespace(): Record<string, unknown> {
  if (!namespace) throw new Error('the Deno namespace is not installed');
  return namespace;
}
