// A scripted OpenAI-compatible chat completions server on loopback. The step answering a request is chosen by
// the number of assistant turns already in it, so a retried request gets the same answer. It fails loudly
// (HTTP 400 naming the turn, and an entry in `errors`) when its script runs out.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedCall[];
  /** Answer with this HTTP status and error message instead. */
  status?: number;
  error?: string;
  delayMs?: number;
  /** Token usage to report (default 10 prompt, 5 completion tokens). */
  usage?: { prompt: number; completion: number };
}

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

export type Step = ScriptedReply | ((req: ChatRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedModel {
  url: string;
  requests: ChatRequest[];
  errors: string[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * `byModel` answers requests for other model names (an auxiliary model such as smart approval's judge) with its own
 * step, whatever the turn; requests for any other model follow `script`.
 */
export async function startScriptedModel(script: Step[], byModel: Record<string, Step> = {}): Promise<ScriptedModel> {
  const requests: ChatRequest[] = [];
  const errors: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, payload: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        send(404, { error: { message: `scripted model: no route ${req.method} ${req.url}` } });
        return;
      }
      const request = JSON.parse(await body(req)) as ChatRequest;
      requests.push(request);
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      const step = Object.hasOwn(byModel, request.model) ? byModel[request.model] : script[turn];
      if (!step) {
        const message = `scripted model: script ran out: request for turn ${turn + 1}, script has ${script.length} steps`;
        errors.push(message);
        send(400, { error: { message, type: 'invalid_request_error' } });
        return;
      }
      const reply = typeof step === 'function' ? await step(request) : step;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.status) {
        send(reply.status, { error: { message: reply.error ?? `scripted status ${reply.status}`, type: 'scripted' } });
        return;
      }
      const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `call_${turn + 1}_${i + 1}`,
        type: 'function',
        function: {
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
        },
      }));
      send(200, {
        id: `chatcmpl-${turn + 1}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.content ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: {
          prompt_tokens: reply.usage?.prompt ?? 10,
          completion_tokens: reply.usage?.completion ?? 5,
          total_tokens: (reply.usage?.prompt ?? 10) + (reply.usage?.completion ?? 5),
        },
      });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    errors,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The tool results the model was sent in its last request, in order. */
export function lastToolResults(model: ScriptedModel): unknown[] {
  const last = model.requests.at(-1);
  return (last?.messages ?? []).filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content ?? 'null') as unknown);
}
