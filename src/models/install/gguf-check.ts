// Checks a GGUF file's own metadata (general.*) against what the catalog expects, so a file of the right hash but
// the wrong model, or the wrong file under the right name, is refused. Worker-only.
import type { ExpectedMetadata } from '../local-catalog.js';

/** The mismatches, empty when the metadata names the expected model. */
export async function ggufMismatches(file: string, expect: ExpectedMetadata): Promise<string[]> {
  const { readGgufFileInfo } = await import('node-llama-cpp');
  let general: Record<string, unknown>;
  try {
    const info = await readGgufFileInfo(file, { readTensorInfo: false });
    general = (info.metadata as { general?: Record<string, unknown> }).general ?? {};
  } catch (err) {
    return [`not a readable GGUF file (${(err as Error).message})`];
  }
  const text = (k: string): string => (typeof general[k] === 'string' ? (general[k] as string) : '');
  const problems: string[] = [];
  if (text('architecture') !== expect.architecture)
    problems.push(`general.architecture is '${text('architecture')}', not '${expect.architecture}'`);
  if (!expect.basename.test(text('basename')))
    problems.push(`general.basename '${text('basename')}' does not match ${String(expect.basename)}`);
  if (text('size_label') !== expect.sizeLabel)
    problems.push(`general.size_label is '${text('size_label')}', not '${expect.sizeLabel}'`);
  if (!expect.instruct.test(text('name')) && !expect.instruct.test(text('finetune')))
    problems.push(`general.name '${text('name')}' / finetune '${text('finetune')}' do not name an instruct model`);
  return problems;
}
