// The GenAI semantic-convention spans: `chat <model>` around a model call and `execute_tool <name>` around a tool
// call, children of the activity's span. Message contents only when asked for, redacted and capped. Loaded only
// when tracing is on (src/observability/tracing.ts). Worker-only.
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { CallModelInput } from '../common/activity-contract.js';
import type { ModelReply } from '../common/types.js';
import { LOCAL_PREFIX } from '../models/types.js';
import { redactToolOutput } from './redact-output.js';
import { toolOutcome, type ToolCallEnd, type ToolCallFacts, type Tracing } from './observe.js';

/** Longest content attribute: a trace backend drops or truncates larger ones, and a span must stay exportable. */
export const MAX_CONTENT_CHARS = 32_000;

export interface GenAiOptions {
  captureContent: boolean;
  /** OPENAI_BASE_URL, for server.address / server.port (default: api.openai.com). */
  openaiBaseUrl?: string;
}

/** Redacted with the policy every tool result gets, then capped, with a note of how much was left out. */
export function contentAttribute(value: unknown): string {
  const text = redactToolOutput(typeof value === 'string' ? value : JSON.stringify(value));
  return text.length <= MAX_CONTENT_CHARS
    ? text
    : `${text.slice(0, MAX_CONTENT_CHARS)}… [${text.length - MAX_CONTENT_CHARS} more characters not exported]`;
}

function server(baseUrl: string | undefined): Attributes {
  try {
    const url = new URL(baseUrl ?? 'https://api.openai.com/v1');
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { 'server.address': url.hostname, 'server.port': port };
  } catch {
    return {};
  }
}

function failed(span: Span, err: unknown): void {
  const e = err as { name?: string; type?: string; message?: string };
  span.recordException(err instanceof Error ? err : String(err));
  span.setAttribute('error.type', e?.type ?? e?.name ?? 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: e?.message ?? String(err) });
}

export function genAiTracing(tracer: Tracer, opts: GenAiOptions): Tracing {
  const openaiServer = server(opts.openaiBaseUrl);

  async function chat(input: CallModelInput, run: () => Promise<ModelReply>): Promise<ModelReply> {
    const local = input.model.startsWith(LOCAL_PREFIX);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      // The OpenAI-compatible endpoint speaks OpenAI's API whoever serves it; `local:` names run in the worker.
      'gen_ai.provider.name': local ? 'tether.local' : 'openai',
      'gen_ai.request.model': input.model,
      ...(local ? {} : openaiServer),
      ...(input.summarise ? { 'tether.model.purpose': 'summary' } : {}),
    };
    return tracer.startActiveSpan(`chat ${input.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        if (opts.captureContent) span.setAttribute('gen_ai.input.messages', contentAttribute(input.messages));
        const reply = await run();
        span.setAttributes({
          'gen_ai.usage.input_tokens': reply.usage.promptTokens,
          'gen_ai.usage.output_tokens': reply.usage.completionTokens,
          'gen_ai.response.finish_reasons': reply.finishReason ? [reply.finishReason] : [],
        });
        if (opts.captureContent) span.setAttribute('gen_ai.output.messages', contentAttribute([reply.message]));
        return reply;
      } catch (err) {
        failed(span, err);
        throw err;
      } finally {
        span.end();
      }
    });
  }

  async function tool<T extends ToolCallEnd>(call: ToolCallFacts, run: () => Promise<T>): Promise<T> {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.callId,
      'gen_ai.tool.type': 'function',
    };
    return tracer.startActiveSpan(
      `execute_tool ${call.name}`,
      { kind: SpanKind.INTERNAL, attributes },
      async (span) => {
        try {
          if (opts.captureContent) span.setAttribute('gen_ai.tool.call.arguments', contentAttribute(call.args));
          const end = await run();
          const outcome = toolOutcome(end);
          span.setAttribute('tether.tool.outcome', outcome);
          if (opts.captureContent) span.setAttribute('gen_ai.tool.call.result', contentAttribute(end.result));
          // The model sees an error result and goes on; for the trace it is still a failed call.
          if (outcome === 'error') {
            span.setAttribute('error.type', 'tool_error');
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          return end;
        } catch (err) {
          span.setAttribute(
            'tether.tool.outcome',
            (err as Error)?.name === 'CancelledFailure' ? 'cancelled' : 'failed',
          );
          failed(span, err);
          throw err;
        } finally {
          span.end();
        }
      },
    );
  }

  return { chat, tool };
}
