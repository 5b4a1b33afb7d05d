// Ctrl-C (SIGINT) and SIGTERM as an AbortSignal, for commands that stop following and leave. Worker-only (client code).

/** An AbortController aborted by SIGINT or SIGTERM; `release` removes the handlers. */
export function interruptSignal(): { signal: AbortSignal; release: () => void } {
  const ctl = new AbortController();
  const onSignal = (): void => ctl.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: ctl.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
