// Messages and commands handed to another machine's broker or RPC service: MQTT, NATS, Kafka, AMQP and Pulsar
// producers, Redis PUBLISH, and gRPC calls of a method that does something (not Get/List/Watch...). A consumer acts
// on them (a refund, a payout, a broadcast, a device command) and they cannot be called back, so each asks when the
// host is another machine; the tools' default (this machine) and explicit loopback hosts stay ordinary. Pure.
import type { Argv } from '../engine/argv.js';
import { show, valueAt, type Check } from './types.js';
import { judges } from './registry.js';
import { keyTable } from '../engine/names.js';

const HOST_OPTS =
  /^(-h|--host|-b|--brokers?|--bootstrap-servers?|--broker-list|-s|--server|--url|-u|--service-url|-H)$/;
const LOOPBACK = /^([a-z][\w+.-]*:\/\/)?(localhost|127(\.\d+){3}|\[?::1\]?|0\.0\.0\.0)(:\d+)?(\/|$)/i;
const BROKER_URL = /^(nats|mqtts?|tcp|ssl|wss?|amqps?|pulsar(\+ssl)?|kafka):\/\//i;
/** gRPC methods that only read. */
const READ_METHOD = /^(Get|List|Describe|Watch|Check|Health|Read|Search|Query|Fetch|Lookup|Count|Stream|Ping|Echo)/;

/** The first host off this machine that the command names (host options, `nats://...` URLs). */
function remote(cmd: Argv): string | undefined {
  const w = cmd.args.map((a) => a.text);
  const hosts = w.flatMap((t, i) => valueAt(w, i, HOST_OPTS)?.split(',') ?? (BROKER_URL.test(t) ? [t] : []));
  return hosts.find((h) => !LOOPBACK.test(h));
}

/** Per producing program, whether its words produce a message (a publishing verb or producer mode). */
const PRODUCES = keyTable<(w: string[]) => boolean>({
  'mosquitto_pub kafka-console-producer kafka-console-producer.sh amqp-publish': () => true,
  nats: (w) => /^(pub|publish|req|request)$/.test(w.find((x) => !x.startsWith('-')) ?? ''),
  'kcat kafkacat': (w) => w.includes('-P'),
  'rabbitmqadmin pulsar-client': (w) => w.some((x) => /^(publish|produce)$/.test(x)),
  'redis-cli': (w) => w.some((x) => /^publish$/i.test(x)),
});

const producer: Check = (cmd, _io, ctx) => {
  const host = remote(cmd);
  if (PRODUCES[cmd.name ?? '']!(cmd.args.map((a) => a.text)) && host !== undefined)
    ctx.add('remote-publish', `${show(cmd)} (to ${host})`);
};

/** grpcurl/grpc_cli HOST:PORT pkg.Service/Method: a call of a method that acts. */
const grpc: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text).filter((t) => !t.startsWith('-'));
  const method = w.find((t) => /^[\w.]+[/.][A-Z]\w*$/.test(t) && t.includes('/'));
  const target = w.find((t) => /^[\w.-]+:\d+$/.test(t));
  if (!method || !target || LOOPBACK.test(target)) return;
  if (!READ_METHOD.test(method.slice(method.lastIndexOf('/') + 1)))
    ctx.add('remote-publish', `${show(cmd)} (${method} on ${target})`);
};

judges(import.meta.url, {
  ...Object.fromEntries(Object.keys(PRODUCES).map((name) => [name, producer])),
  'grpcurl grpc_cli': grpc,
});
