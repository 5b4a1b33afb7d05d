// The cancel and backstop wiring every foreground command shares, whether it runs in the task's shell or as a process
// of its own. Worker-only.

type KillOutcome = 'killed' | 'gone' | 'alive';

/** How long past its timeout a command may go unanswered before the backstop kills it (the far side stopped answering). */
const BACKSTOP_MS = 15_000;

/**
 * Kills the command when `signal` aborts (a cancel) or when it outlives its timeout by the backstop's margin (the
 * environment's own watchdog should have ended it); `onBackstop` then drops what carried it, 3 s after the kill.
 */
export class CommandGuard {
  cancelled = false;
  backstopHit = false;
  /** The kill under way, if any: a command is over only once its whole process group is gone. */
  killing: Promise<KillOutcome> | undefined;
  private readonly backstop: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => void this.kill();

  constructor(
    private readonly req: { signal?: AbortSignal; timeoutSeconds: number },
    private readonly killCommand: () => Promise<KillOutcome>,
    onBackstop: () => void,
  ) {
    req.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (req.signal?.aborted) this.onAbort();
    this.backstop =
      req.timeoutSeconds > 0
        ? setTimeout(
            () => {
              this.backstopHit = true;
              void killCommand().finally(() => setTimeout(onBackstop, 3_000).unref());
            },
            req.timeoutSeconds * 1000 + BACKSTOP_MS,
          )
        : undefined;
  }

  /** Cancels the command: kills its process group and resolves once the kill has been tried. */
  readonly kill = async (): Promise<void> => {
    this.cancelled = true;
    this.killing ??= this.killCommand();
    await this.killing;
  };

  /**
   * What the command's end means, once any kill under way has finished: a timeout is exit 124, a cancel 130.
   * `timedOutOtherwise` is asked only after that kill, so it may read the clock.
   */
  async outcome(
    exitCode: number | null,
    timedOutOtherwise: () => boolean = () => false,
  ): Promise<{ exitCode: number | null; timedOut: boolean; cancelled: boolean; survivedKill?: true }> {
    const killed = this.killing ? await this.killing : undefined;
    const timedOut = exitCode === 124 || this.backstopHit || timedOutOtherwise();
    const cancelled = this.cancelled && !timedOut;
    return {
      exitCode: timedOut ? 124 : cancelled ? 130 : exitCode,
      timedOut,
      cancelled,
      ...(killed === 'alive' ? { survivedKill: true as const } : {}),
    };
  }

  /** The command is over: no more backstop, no more listening for a cancel. */
  dispose(): void {
    if (this.backstop) clearTimeout(this.backstop);
    this.req.signal?.removeEventListener('abort', this.onAbort);
  }
}
