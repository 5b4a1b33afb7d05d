// Collects a process's output with bounded memory: the first and last bytes are kept, the middle counted. Worker-only.

export class HeadTailBuffer {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly keepBytes = 2 * 1024 * 1024) {}

  push(chunk: Buffer): void {
    if (this.headBytes < this.keepBytes) {
      const room = this.keepBytes - this.headBytes;
      this.head.push(chunk.subarray(0, room));
      this.headBytes += Math.min(room, chunk.length);
      if (chunk.length <= room) return;
      chunk = chunk.subarray(room);
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.keepBytes && this.tail.length > 1) {
      const first = this.tail.shift()!;
      this.tailBytes -= first.length;
      this.dropped += first.length;
    }
  }

  /** Decoded text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (this.dropped === 0) return head + tail;
    return `${head}\n[... ${this.dropped} bytes of output dropped ...]\n${tail}`;
  }
}

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*(\u0007|\u001b\\)/g;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Text a model can read: colour codes and control characters removed, binary noted instead of dumped. */
export function cleanOutput(text: string): string {
  const withoutAnsi = text.replace(ANSI, '');
  let removed = 0;
  const cleaned = withoutAnsi.replace(CONTROL, () => {
    removed += 1;
    return '';
  });
  const replacement = (cleaned.match(/\uFFFD/g) ?? []).length;
  if (removed + replacement > 32 && removed + replacement > cleaned.length / 20) {
    return `[binary output: ${removed} control characters and ${replacement} invalid UTF-8 sequences removed]\n${cleaned.replace(/\uFFFD/g, '')}`;
  }
  return cleaned;
}
