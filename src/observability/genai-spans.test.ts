// The GenAI spans on the real OpenTelemetry SDK (an in-memory exporter reads them back): attributes, errors, and
// message content only when asked for, redacted and capped.
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelReply } from '../common/types.js';
import { genAiTracing, MAX_CONTENT_CHARS } from './genai-spans.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
afterEach(() => exporter.reset());

const reply: ModelReply = {
  message: { role: 'assistant', content: 'the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123' },
  usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
  finishReason: 'stop',
};
const input = (content: string) => ({ model: 'gpt-x', messages: [{ role: 'user' as const, content }], tools: [] });

describe('chat spans', () => {
  it('carry the GenAI attributes and no content unless capture is on', async () => {
    const off = genAiTracing(tracer, { captureContent: false, openaiBaseUrl: 'http://127.0.0.1:8080/v1' });
    await off.chat(input('hello'), async () => reply);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('chat gpt-x');
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-x',
      'server.address': '127.0.0.1',
      'server.port': 8080,
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  it('with capture on, exports the messages redacted, and caps a long one', async () => {
    process.env.OTEL_TEST_API_KEY = 'the-worker-secret-value';
    try {
      const on = genAiTracing(tracer, { captureContent: true });
      await on.chat(input('my key: the-worker-secret-value'), async () => reply);
      await on.chat(input('x'.repeat(MAX_CONTENT_CHARS * 2)), async () => reply);
    } finally {
      delete process.env.OTEL_TEST_API_KEY;
    }
    const [first, long] = exporter.getFinishedSpans();
    const sent = String(first?.attributes['gen_ai.input.messages']);
    expect(sent).toContain('[REDACTED OTEL_TEST_API_KEY]');
    expect(sent).not.toContain('the-worker-secret-value');
    const got = String(first?.attributes['gen_ai.output.messages']);
    expect(got).toContain('[REDACTED key]');
    expect(got).not.toContain('sk-proj-');
    const capped = String(long?.attributes['gen_ai.input.messages']);
    expect(capped.length).toBeLessThan(MAX_CONTENT_CHARS + 100);
    expect(capped).toMatch(/… \[\d+ more characters not exported\]$/);
  });

  it('a failed call is an error span with its type, and the failure still reaches the caller', async () => {
    const t = genAiTracing(tracer, { captureContent: false });
    const failure = Object.assign(new Error('rate limited'), { type: 'Model.RateLimited' });
    await expect(t.chat({ ...input('x'), model: 'local:tiny' }, () => Promise.reject(failure))).rejects.toBe(failure);
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['gen_ai.provider.name']).toBe('tether.local');
    expect(span?.attributes['server.address']).toBeUndefined();
    expect(span?.attributes['error.type']).toBe('Model.RateLimited');
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'rate limited' });
  });
});

describe('execute_tool spans', () => {
  it('name the tool and call, and mark an error result as an error', async () => {
    const t = genAiTracing(tracer, { captureContent: false });
    const call = { name: 'read_file', callId: 'call_1', args: '{"path":"x"}' };
    await t.tool(call, async () => ({ status: 'ok', result: '{"content":"x"}' }));
    await t.tool(call, async () => ({ status: 'ok', result: '{"error": "no such file"}' }));
    await t.tool(call, async () => ({ status: 'blocked', result: '{"error":"Blocked by plugin"}' }));
    const [ok, error, blocked] = exporter.getFinishedSpans();
    expect(ok?.name).toBe('execute_tool read_file');
    expect(ok?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'call_1',
      'tether.tool.outcome': 'ok',
    });
    expect(ok?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    expect(error?.attributes['tether.tool.outcome']).toBe('error');
    expect(error?.status.code).toBe(SpanStatusCode.ERROR);
    expect(blocked?.attributes['tether.tool.outcome']).toBe('blocked');
    expect(blocked?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('with capture on, exports arguments and result redacted', async () => {
    const t = genAiTracing(tracer, { captureContent: true });
    await t.tool({ name: 'terminal', callId: 'c', args: '{"command":"echo GITHUB_TOKEN=abcdef123456"}' }, async () => ({
      status: 'ok',
      result: '{"output":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}',
    }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBe(
      '{"command":"echo GITHUB_TOKEN=[REDACTED GITHUB_TOKEN]"}',
    );
    expect(span?.attributes['gen_ai.tool.call.result']).toBe('{"output":"[REDACTED key]"}');
  });
});
