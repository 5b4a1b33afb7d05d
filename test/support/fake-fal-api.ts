// Test double: a fake fal queue API on loopback (submit, status, result), enough for the real @fal-ai/client's subscribe.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeFalApi {
  /** For FAL_BASE_URL: stands in for https://queue.fal.run. */
  url: string;
  /** Submitted jobs: the model path, the input, and how many status polls it took. */
  submits: { model: string; input: Record<string, unknown>; polls: number }[];
  close(): Promise<void>;
}

export const GOOD_FAL_KEY = 'fal-test-key';

const SIZES: Record<string, [number, number]> = {
  square_hd: [1024, 1024],
  square: [512, 512],
  portrait_4_3: [768, 1024],
  portrait_16_9: [576, 1024],
  landscape_4_3: [1024, 768],
  landscape_16_9: [1024, 576],
};

async function readBody(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const chunk of req) s += String(chunk);
  return s;
}

export async function startFakeFalApi(): Promise<FakeFalApi> {
  const submits: FakeFalApi['submits'] = [];
  const jobs = new Map<string, FakeFalApi['submits'][number]>();
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-fal-request-id': 'fake' }).end(JSON.stringify(body));
  };
  let origin = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers.authorization !== `Key ${GOOD_FAL_KEY}`) {
        json(res, 401, { detail: 'Invalid credentials' });
        return;
      }
      const status = /^\/([^/]+\/[^/]+)\/requests\/([^/]+)\/status$/.exec(url.pathname);
      const result = /^\/([^/]+\/[^/]+)\/requests\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'POST') {
        const input = JSON.parse(await readBody(req)) as Record<string, unknown>;
        if (typeof input.prompt !== 'string' || input.prompt === '') {
          json(res, 422, { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] });
          return;
        }
        const id = randomUUID();
        const model = url.pathname.slice(1);
        const job = { model, input, polls: 0 };
        submits.push(job);
        jobs.set(id, job);
        const app = model.split('/').slice(0, 2).join('/');
        json(res, 200, {
          request_id: id,
          status: 'IN_QUEUE',
          queue_position: 0,
          status_url: `${origin}/${app}/requests/${id}/status`,
          response_url: `${origin}/${app}/requests/${id}`,
          cancel_url: `${origin}/${app}/requests/${id}/cancel`,
        });
      } else if (req.method === 'GET' && status) {
        const job = jobs.get(status[2]!);
        if (!job) return json(res, 404, { detail: 'Request not found' });
        job.polls++;
        // The first poll finds the job running, so the client's polling loop is exercised.
        json(
          res,
          200,
          job.polls < 2
            ? { status: 'IN_PROGRESS', logs: [] }
            : { status: 'COMPLETED', logs: [], metrics: { inference_time: 0.5 } },
        );
      } else if (req.method === 'GET' && result) {
        const job = jobs.get(result[2]!);
        if (!job) return json(res, 404, { detail: 'Request not found' });
        const [width, height] = SIZES[String(job.input.image_size ?? 'landscape_4_3')] ?? [1024, 768];
        json(res, 200, {
          images: [{ url: `https://fal.media/files/fake/${result[2]}.jpg`, width, height, content_type: 'image/jpeg' }],
          seed: 42,
          prompt: job.input.prompt,
        });
      } else {
        json(res, 404, { detail: `no such endpoint ${req.method} ${url.pathname}` });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    submits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
