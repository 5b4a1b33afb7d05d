// Plugins from the user folder, the project folder and an npm package: tools, toolsets, environments and every hook.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { environmentProvider } from '../src/environments/providers.js';
import { loadPlugins, type PluginLoadResult } from '../src/plugins/loader.js';
import { recordTrust } from '../src/plugins/trust.js';
import { toolCall } from '../src/registry/tool-call.js';
import { runToolCall, type CallOptions } from '../src/registry/handle-function-call.js';
import { Hooks } from '../src/registry/hooks.js';
import { ToolRegistry } from '../src/registry/registry.js';
import { resolveToolset } from '../src/toolsets/resolve.js';
import { recordingLogger } from './support/recording-logger.js';

const g = globalThis as unknown as { pluginEvents: string[] };
const root = mkdtempSync(join(tmpdir(), 'tether-plugins-'));
const userDir = join(root, 'home', 'plugins');
const project = join(root, 'project');
/** Where plugin packages are installed: TETHER_HOME's node_modules (here a folder of the test's own). */
const packageRoot = join(root, 'home');
const projectDir = join(project, '.tether', 'plugins');

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

write(
  join(userDir, 'a-user.mjs'),
  `export function register(ctx) {
  ctx.registerTool({
    name: 'user_hello', toolset: 'greetings', description: 'greets',
    schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: (args) => JSON.stringify({ hello: args.name }),
  });
  ctx.registerTool({ name: 'user_danger', toolset: 'greetings', description: 'dangerous', schema: { type: 'object' }, handler: () => '{"done":true}' });
  ctx.on('pre_tool_call', (call) => {
    globalThis.pluginEvents.push('user:pre:' + call.name);
    if (call.name === 'shell' && String(call.args?.command).includes('rm ')) return { action: 'block', message: 'no deleting' };
  });
  ctx.on('transform_tool_result', (call) => call.name === 'user_hello' ? JSON.stringify({ ...JSON.parse(call.result), by: ctx.name }) : undefined);
}
`,
);
write(
  join(userDir, 'b-broken.mjs'),
  `export function register(ctx) {
  ctx.on('pre_tool_call', () => ({ action: 'block', message: 'from a broken plugin' }));
  ctx.registerTool({ name: 'broken_tool', toolset: 'broken', description: '', schema: { type: 'object' }, handler: () => '{}' });
  throw new Error('cannot start');
}
`,
);
write(join(userDir, 'notes.txt'), 'not a plugin');
// A plugin folder whose package.json names a build that was never made.
write(
  join(userDir, 'c-unbuilt', 'package.json'),
  JSON.stringify({ name: 'c-unbuilt', type: 'module', main: 'dist/index.js' }),
);
write(
  join(projectDir, 'project-plugin.mjs'),
  `export default {
  register(ctx) {
    ctx.on('pre_tool_call', (call) => {
      globalThis.pluginEvents.push('project:pre:' + call.name);
      if (call.name === 'user_hello') return { action: 'modify', args: { name: String(call.args.name).toUpperCase() } };
      if (call.name === 'user_danger') return { action: 'require_approval', reason: 'it is dangerous' };
    });
    ctx.on('post_tool_call', (call) => { globalThis.pluginEvents.push('project:post:' + call.name + ':' + call.result); });
    ctx.on('post_tool_call', () => { throw new Error('observer broke'); });
    ctx.registerToolset('friendly', { description: 'friendly tools', includes: ['greetings'], tools: ['not_registered_anywhere'] });
    ctx.registerEnvironment('fake-sandbox', (o) => ({ kind: 'fake', task: o.taskId }));
  },
};
`,
);
write(
  join(packageRoot, 'node_modules', 'tether-plugin-sample', 'package.json'),
  JSON.stringify({ name: 'tether-plugin-sample', type: 'module', main: 'index.js' }),
);
write(
  join(packageRoot, 'node_modules', 'tether-plugin-sample', 'index.js'),
  `export function register(ctx) {
  ctx.registerTool({ name: 'shell', toolset: 'sample', description: 'pretend shell', schema: { type: 'object', properties: { command: { type: 'string' } } }, handler: (a) => JSON.stringify({ ran: a.command }) });
}
`,
);

describe('plugins', () => {
  const registry = new ToolRegistry(recordingLogger());
  const hooks = new Hooks();
  const log = recordingLogger();
  let result: PluginLoadResult;
  let options: CallOptions;
  const call = (name: string, args: object, approved = false) =>
    runToolCall(toolCall(registry, name, JSON.stringify(args)), 'task', 'user task', { ...options, approved });

  beforeAll(async () => {
    g.pluginEvents = [];
    const sources = {
      userDir,
      projectDir,
      packages: ['tether-plugin-sample', 'tether-plugin-not-installed'],
      packageRoot,
      projectRoot: project,
    };
    // What `tether plugins trust` does: the person reviewed the project's plugins and trusts them as they are.
    recordTrust([projectDir]);
    result = await loadPlugins(sources, { registry, hooks, log, config: parseConfig({}) });
    options = { registry, hooks, log, cwd: project };
  });

  it('loads from the user folder, the project folder and npm packages, in that order; failures are skipped', () => {
    expect(result.loaded).toEqual(['user:a-user', 'project:project-plugin', 'npm:tether-plugin-sample']);
    expect(result.failed.map((f) => f.plugin)).toEqual([
      'user:b-broken',
      'user:c-unbuilt',
      'npm:tether-plugin-not-installed',
    ]);
    expect(result.failed[0]!.error).toBe('Error: cannot start');
    expect(log.lines.filter((l) => l.msg.includes('failed to load'))).toHaveLength(3);
    // Nothing of the broken plugin stays registered.
    expect(registry.get('broken_tool')).toBeUndefined();
    expect(hooks.set.pre_tool_call.map((h) => h.source)).toEqual(['user:a-user', 'project:project-plugin']);
  });

  it('registers tools, toolsets and environment providers', () => {
    expect(registry.get('user_hello')?.toolset).toBe('greetings');
    expect(registry.get('shell')?.toolset).toBe('sample');
    expect([...resolveToolset('friendly', registry)].sort()).toEqual(['user_danger', 'user_hello']);
    expect(environmentProvider('fake-sandbox')).toMatchObject({ source: 'project:project-plugin' });
  });

  it('runs hooks in load order: modify arguments, observe, transform the result', async () => {
    g.pluginEvents = [];
    const out = await call('user_hello', { name: 'ada' });
    expect(JSON.parse(out.result)).toEqual({ hello: 'ADA', by: 'user:a-user' });
    expect(g.pluginEvents).toEqual([
      'user:pre:user_hello',
      'project:pre:user_hello',
      'project:post:user_hello:{"hello":"ADA"}',
    ]);
  });

  it('lets a pre_tool_call hook block a call, and another require approval', async () => {
    const blocked = await call('shell', { command: 'rm -rf /tmp/x' });
    expect(blocked).toMatchObject({ status: 'blocked', message: 'no deleting' });
    expect(JSON.parse(blocked.result)).toEqual({ error: 'Blocked by user:a-user: no deleting' });
    expect(JSON.parse((await call('shell', { command: 'ls' })).result)).toEqual({ ran: 'ls' });
    expect(await call('user_danger', {})).toMatchObject({ status: 'approval_required', reason: 'it is dangerous' });
    expect(JSON.parse((await call('user_danger', {}, true)).result)).toEqual({ done: true });
  });

  it('logs a throwing hook and the call still succeeds', async () => {
    const before = log.lines.length;
    expect((await call('shell', { command: 'pwd' })).status).toBe('ok');
    expect(log.lines.slice(before).some((l) => l.msg.includes('post_tool_call hook threw'))).toBe(true);
  });
});

describe('project plugins load only as a person trusted them', () => {
  const fresh = (): { dir: string; sources: Parameters<typeof loadPlugins>[0] } => {
    const base = mkdtempSync(join(tmpdir(), 'tether-plugin-trust-'));
    const dir = join(base, '.tether', 'plugins');
    write(join(dir, 'p.mjs'), `export function register() { globalThis.pluginEvents.push('trusted-ran'); }`);
    return {
      dir,
      sources: { userDir: join(base, 'none'), projectDir: dir, packages: [], packageRoot: base, projectRoot: base },
    };
  };
  const load = (sources: Parameters<typeof loadPlugins>[0]) =>
    loadPlugins(sources, {
      registry: new ToolRegistry(recordingLogger()),
      hooks: new Hooks(),
      log: recordingLogger(),
      config: parseConfig({}),
    });

  it('skips a plugin a run could have written: never trusted, changed since, or holding a link', async () => {
    const never = fresh();
    const r1 = await load(never.sources);
    expect(r1.loaded).toEqual([]);
    expect(r1.failed[0]!.error).toMatch(/was never trusted: review it, then run `tether plugins trust`/);

    const changed = fresh();
    recordTrust([changed.dir]);
    expect((await load(changed.sources)).loaded).toEqual(['project:p']);
    write(join(changed.dir, 'helper.mjs'), 'export const x = 1;'); // a new file beside it counts too
    const r2 = await load(changed.sources);
    expect(r2.loaded).toEqual([]);
    expect(r2.failed[0]!.error).toMatch(/changed since it was trusted/);

    const linked = fresh();
    write(join(linked.dir, '..', '..', 'elsewhere.mjs'), 'export function register() {}');
    symlinkSync(join(linked.dir, '..', '..', 'elsewhere.mjs'), join(linked.dir, 'q.mjs'));
    expect(() => recordTrust([linked.dir])).toThrow(/holds a symbolic link \(q\.mjs\)/);
    const r3 = await load(linked.sources);
    expect(r3.loaded).toEqual([]);
    expect(r3.failed.map((f) => f.error).join(' ')).toMatch(/holds a symbolic link \(q\.mjs\)/);
  });

  it("a dependency planted beside a trusted plugin is not what it imports: it loads from tether's copy", async () => {
    const t = fresh();
    write(
      join(t.dir, 'uses.mjs'),
      `import h from 'helper-dep'; export function register() { globalThis.pluginEvents.push(h); }`,
    );
    write(
      join(t.dir, 'node_modules', 'helper-dep', 'package.json'),
      '{"name":"helper-dep","type":"module","main":"i.js"}',
    );
    write(join(t.dir, 'node_modules', 'helper-dep', 'i.js'), `export default 'reviewed-helper';`);
    recordTrust([t.dir]);
    g.pluginEvents = [];
    expect((await load(t.sources)).loaded).toEqual(['project:p', 'project:uses']);
    expect(g.pluginEvents).toContain('reviewed-helper');
    // A run writes a dependency where a bare import would look first, and another in the project's node_modules.
    write(join(t.dir, 'node_modules', 'helper-dep', 'i.js'), `export default 'planted';`);
    write(join(t.dir, '..', '..', 'node_modules', 'other', 'index.js'), `globalThis.pluginEvents.push('planted-2');`);
    g.pluginEvents = [];
    const after = await load(t.sources);
    expect(after.loaded).toEqual([]);
    expect(after.failed[0]!.error).toMatch(/changed since it was trusted/);
    expect(g.pluginEvents).toEqual([]);
  });

  it('refuses a plugin package installed only in the project, naming how to install it into TETHER_HOME', async () => {
    const t = fresh();
    const base = join(t.dir, '..', '..');
    write(join(base, 'node_modules', 'proj-only-plugin', 'package.json'), '{"name":"proj-only-plugin","main":"i.js"}');
    write(
      join(base, 'node_modules', 'proj-only-plugin', 'i.js'),
      'globalThis.pluginEvents.push("ran-project-package")',
    );
    g.pluginEvents = [];
    const r = await loadPlugins(
      { ...t.sources, projectDir: join(base, 'none'), packages: ['proj-only-plugin'], packageRoot: join(base, 'home') },
      {
        registry: new ToolRegistry(recordingLogger()),
        hooks: new Hooks(),
        log: recordingLogger(),
        config: parseConfig({}),
      },
    );
    expect(r.failed[0]!.error).toMatch(
      /proj-only-plugin is installed in the project, where a run can write: install it into TETHER_HOME instead \(npm install --prefix .* proj-only-plugin\)/,
    );
    expect(g.pluginEvents).toEqual([]);
  });
});
