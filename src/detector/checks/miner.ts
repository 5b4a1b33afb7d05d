// Cryptocurrency miners: a program or image named like a known miner, or a mining pool's stratum address in any
// argument (however the miner binary is renamed). Pure.
import type { Argv } from '../engine/argv.js';
import { show, type CheckContext } from './types.js';

const MINER_NAME =
  /(^|[/_.-])(xmrig|xmr-stak|cpuminer|cpuminer-opt|minerd|cgminer|bfgminer|ethminer|nbminer|lolminer|t-rex|phoenixminer|gminer|srbminer|teamredminer|nanominer|kdevtmpfsi|kinsing)([/_.:-]|$)/i;
const STRATUM = /\bstratum\d?\+(tcp|ssl|tls):\/\//i;

/** An image or program name that is a known miner. */
export const isMinerName = (name: string): boolean => MINER_NAME.test(name);

/** Judged for every command, whatever its name: miners are renamed, their pool addresses are not. */
export function checkMiner(cmd: Argv, ctx: CheckContext): void {
  if (isMinerName(cmd.written)) ctx.add('crypto-miner', show(cmd));
  else if (cmd.args.some((a) => STRATUM.test(a.text))) ctx.add('crypto-miner', `${show(cmd)} (a mining pool address)`);
  else if (image(cmd.args.map((a) => a.text)).some(isMinerName))
    ctx.add('crypto-miner', `${show(cmd)} (a miner image)`);
}

/** Images named by an option (`kubectl run x --image=xmrig/xmrig`, `create deployment --image`, `--set image=`). */
function image(words: string[]): string[] {
  return words.flatMap((w, i) => {
    const m = /^--?(image|container-image|docker-image)(=(.*))?$/.exec(w);
    if (m) return [m[3] ?? words[i + 1] ?? ''];
    return /(^|[.,])image(\.repository)?=([^,]+)/.exec(w)?.slice(3, 4) ?? [];
  });
}

/** GPU machine types of the clouds (AWS p/g families, GCP a2/a3/g2, Azure N-series) and accelerator options. */
const GPU_TYPE = /^(p[2-6]\w*|g[3-6]\w*|trn\d\w*|inf\d\w*|dl\d\w*)\.\w+$|^(a2|a3|g2)-[\w-]+$|^Standard_N[CDV]\w*$|gpu/i;

/** Verbs that launch machines (or containers on them). */
const LAUNCH =
  /^(run-instances|create|create-fleet|request-spot-instances|request-spot-fleet|deploy|create-with-container)$/;

/**
 * Cloud machines with GPUs launched from the command line: hours of them cost more than most projects, and fleets of
 * them are what stolen credentials are used to mine with. Listing and describing them stays ordinary.
 */
export function checkGpuFleet(cmd: Argv, ctx: CheckContext): void {
  const w = cmd.args.map((a) => a.text);
  const verbs = w.filter((t) => /^[a-z][\w-]*$/.test(t)).slice(0, 4);
  if (!verbs.some((v) => LAUNCH.test(v))) return;
  const type =
    w.find(
      (t, i) =>
        /^--?(instance-type|machine-type|size|vm-size|node-vm-size|type)$/.test(w[i - 1] ?? '') && GPU_TYPE.test(t),
    ) ??
    w.find(
      (t) => /^--?(instance-type|machine-type|size|vm-size)=/.test(t) && GPU_TYPE.test(t.slice(t.indexOf('=') + 1)),
    );
  const accelerator = w.find(
    (t, i) => /^--(accelerator|gpus?)(=|$)/.test(t) && (t.includes('=') || w[i + 1] !== undefined),
  );
  if (type ?? accelerator) ctx.add('gpu-fleet', `${show(cmd)} (${type ?? accelerator})`);
}
