// Messages and commands published to another machine's broker or RPC service (brokers.ts); local brokers, reads
// and consumers stay ordinary.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  'mosquitto_pub -h iot.acme.io -p 8883 -t valves/7/set -m close',
  'nats request billing.charge \'{"cents":900}\' -s tls://nats.acme.cloud:4222',
  'kafkacat -b broker-2.acme.io:9092 -t invoices -P -l batch.json',
  'kafka-console-producer --bootstrap-server pkc-1.confluent.cloud:9092 --topic emails < promo.jsonl',
  'rabbitmqadmin -H mq.acme.io publish exchange=amq.default routing_key=jobs payload=wipe',
  'redis-cli -h cache.acme.io PUBLISH deploys restart-all',
  "grpc_cli call ledger.acme.io:443 ledger.v1.Ledger/Transfer 'amount: 100'",
  'grpcurl -d \'{"id":"u1"}\' users.acme.io:443 users.v1.Users/DeleteUser',
])('%s asks', (command) => {
  expect(rules(command)).toContain('remote-publish');
});

it.each([
  'mosquitto_pub -t test/topic -m hello',
  'mosquitto_pub -h 127.0.0.1 -t test -m hi',
  'nats pub demo.hello hi',
  'nats sub orders.> -s nats://nats.acme.io:4222',
  'kcat -C -b kafka.acme.io:9092 -t orders -o end -c 5',
  'kafka-console-consumer --bootstrap-server kafka.acme.io:9092 --topic t --max-messages 3',
  'grpcurl -d \'{"id":"u1"}\' users.acme.io:443 users.v1.Users/GetUser',
  'grpcurl -plaintext localhost:50051 orders.v1.Orders/CreateOrder',
  'redis-cli -h cache.acme.io SUBSCRIBE deploys',
])('%s stays ordinary', (command) => {
  expect(rules(command)).not.toContain('remote-publish');
});
