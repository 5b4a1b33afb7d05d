// How a container CLI's command line reads (docker, podman, nerdctl, ctr, buildah, docker-compose): global options with
// their values skipped, a management group (`container`, `image`, `volume`, `compose`...) and its verb, so that
// `docker -H tcp://h container run …`, `podman --url x kill -a` and `docker compose -f x.yml exec web sh` read as what
// they do. The one reader for every judgement of a container CLI (containers/checks.ts lists them). Pure.
import type { CheckContext, Io } from '../../checks/types.js';
import type { Argv } from '../../engine/argv.js';
import { names } from '../../engine/names.js';
import type { Word } from '../../engine/words.js';

/** Options before the subcommand that take a value (docker, podman, nerdctl and ctr alike). */
const GLOBAL_VALUED = names(`-H --host --context -c --config -l --log-level -n --namespace --address -a --url
  --connection --identity --root --runroot --storage-driver --cgroup-manager --data-root --snapshotter --tls-verify
  --tlscacert --tlscert --tlskey`);
/** Options of `compose` (and `docker-compose`) before its verb that take a value. */
const COMPOSE_VALUED = names(`-f --file -p --project-name --env-file --profile --project-directory --ansi --progress
  --parallel -H --host --context`);
/** Management groups whose verb is the next word (`docker image push`, `ctr containers create`). */
const GROUPS = names(`container containers c image images volume volumes network system builder buildx compose
  plugin node service stack secret config context manifest trust`);

export interface ContainerCall {
  /** The management group, when there is one (`container` in `docker container run`; `compose` for docker-compose). */
  group?: string;
  /** The subcommand (`run`, `exec`, `push`, `prune`, `down`...). */
  verb?: string;
  /** The arguments after the verb. */
  rest: Word[];
}

/** Skips options (and the values of those in `valued`) from `i`; returns where the next operand stands. */
function skipOptions(args: readonly Word[], i: number, valued: readonly string[]): number {
  while (i < args.length && args[i]!.text.startsWith('-') && args[i]!.text !== '--')
    i += valued.includes(args[i]!.text) ? 2 : 1;
  return i;
}

/** Reads a container CLI's command line. */
export function containerCall(cmd: Argv): ContainerCall {
  const args = cmd.args;
  const compose = /-compose$/.test(cmd.name ?? '');
  let i = skipOptions(args, 0, compose ? COMPOSE_VALUED : GLOBAL_VALUED);
  let group = compose ? 'compose' : undefined;
  if (!compose && GROUPS.includes(args[i]?.text ?? '')) {
    group = args[i]!.text;
    i += 1;
    if (group === 'compose') i = skipOptions(args, i, COMPOSE_VALUED);
  }
  const verb = args[i]?.text;
  return { ...(group ? { group } : {}), ...(verb ? { verb } : {}), rest: args.slice(i + 1) };
}

/** A judgement of one container CLI command (what it runs, mounts, removes, pushes...), kept with its threat class. */
export type ContainerCheck = (call: ContainerCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
