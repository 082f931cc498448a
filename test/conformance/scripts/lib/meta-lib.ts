export const meta = { url: import.meta.url.replace(/^.*\/conformance\//, '…/'), main: import.meta.main, filename: import.meta.filename?.replace(/^.*\/conformance\//, '…/'), dirname: import.meta.dirname?.replace(/^.*\/conformance/, '…'), keys: Object.keys(import.meta) };
export const resolved = import.meta.resolve('./other.ts').replace(/^.*\/conformance\//, '…/');
