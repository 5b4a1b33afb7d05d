// A `node --import` hook that records every module a process loads into the file TETHER_MODULE_TRACE names: ES
// modules as the loader loads them (appended from the hooks thread, so none is lost at exit), CommonJS modules from
// require's cache at exit. Used by test/cli-start.test.ts to see what a command imports.
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.TETHER_MODULE_TRACE;
if (out) {
  writeFileSync(out, '');
  const hooks = `
    import { appendFileSync } from 'node:fs';
    let file;
    export function initialize(data) { file = data.file; }
    export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
  `;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { file: out } });
  process.on('exit', () => {
    appendFileSync(out, `${Object.keys(createRequire(import.meta.url).cache).join('\n')}\n`);
  });
}
