// Cryptocurrency miners: a program or image named like a known miner, or a mining pool's stratum address in any
// argument (however the miner binary is renamed). Pure.
import type { Argv } from '../argv.js';
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
