// Public exposure (src/detector/checks/exposure.ts): tunnel services and listeners on every interface that hand
// something out; the container API written to over its socket; miner images named by an option.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['ngrok http --domain=demo.example.dev 8080', 'expose-service'],
  ['ngrok start --all', 'expose-service'],
  ['npx localtunnel --port 5173', 'expose-service'],
  ['cloudflared tunnel run dev-box', 'expose-service'],
  ['tailscale funnel --bg 3000', 'expose-service'],
  ['code tunnel --accept-server-license-terms', 'expose-service'],
  ['zrok share public localhost:8080', 'expose-service'],
  ['chisel client https://relay.example.org R:2222:localhost:22', 'expose-service'],
  ['redis-server --bind 0.0.0.0 --protected-mode no', 'expose-service'],
  ['jupyter lab --ServerApp.ip=0.0.0.0 --ServerApp.token= --no-browser', 'expose-service'],
  ['code-server --bind-addr 0.0.0.0:8443 --auth none', 'expose-service'],
  ['oc port-forward --address=0.0.0.0 pod/db-0 5432', 'expose-service'],
  ['socat TCP4-LISTEN:6000,bind=0.0.0.0,fork TCP4:10.1.2.3:6379', 'expose-service'],
  ['php -S [::]:9000 -t ~', 'expose-service'],
  ['curl -XDELETE --unix-socket /var/run/docker.sock http://x/containers/db?force=1', 'container-escape'],
  ['curl --unix-socket /run/containerd/containerd.sock --data @spec.json http://x/run', 'container-escape'],
  ['kubectl create deployment w --image=ghcr.io/someone/xmrig-proxy:latest', 'crypto-miner'],
])('asks: %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'ngrok config add-authtoken $NGROK_AUTHTOKEN',
  'ngrok version',
  'cloudflared tunnel list',
  'tailscale funnel status',
  'tailscale serve 3000',
  'jupyter lab --ip=0.0.0.0 --port 8888 --no-browser',
  'npx vite --host 0.0.0.0 --port 5173',
  'uvicorn app:app --host 0.0.0.0 --port 8000',
  'kubectl port-forward svc/web 8080:80',
  'socat TCP-LISTEN:9000,fork,bind=0.0.0.0 TCP:localhost:3000',
  'php -S 0.0.0.0:8080 -t public',
  'docker run -d -p 6379:6379 redis:7',
  'curl --unix-socket /var/run/docker.sock http://x/images/json',
  'kubectl run web --image=nginx:1.27',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});

it.each([
  ['miniserve --interfaces 0.0.0.0 ~', 'expose-service'],
  ['gohttpserver --addr :8000 --root /etc', 'expose-service'],
  ['rclone serve webdav $HOME --addr :8080', 'expose-service'],
  ['socat TCP-LISTEN:2376,reuseaddr,fork UNIX-CONNECT:/run/podman/podman.sock', 'expose-service'],
  ['oc expose deployment api --type=LoadBalancer --port 80', 'expose-service'],
  ['kubectl patch service db -p \'{"spec":{"type":"NodePort"}}\'', 'expose-service'],
])('asks (listeners): %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'caddy file-server --listen 127.0.0.1:8080 --root ./public',
  'rclone serve http ./dist --addr 127.0.0.1:8080',
  'socat TCP-LISTEN:2375,bind=127.0.0.1,fork UNIX-CONNECT:/var/run/docker.sock',
  'kubectl patch svc web -p \'{"spec":{"type":"ClusterIP"}}\'',
  'kubectl expose deployment api --type=LoadBalancer --port 80 --dry-run=client -o yaml',
])('ordinary (listeners): %s', (command) => {
  expect(rules(command)).not.toContain('expose-service');
});
