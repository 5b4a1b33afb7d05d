// Where else a secret can leave, beyond HTTP clients and copies (exfil.ts): message brokers, RPC and file-share
// clients that send what they are given (`... | mosquitto_pub -s`, `grpcurl -d "$(base64 KEY)"`, `smbclient -c 'put
// ~/.git-credentials'`); text that is published (an issue or gist body read from standard input, a commit or tag
// message, which every push and clone carries); and a secret put into a URL written anywhere (a markdown image link
// in a README fetches `https://host/x.png?k=SECRET` when it is rendered). Judged for every command. Pure.
import type { Argv } from '../engine/argv.js';
import type { Word } from '../engine/words.js';
import { READS_SECRETS, isCredentialPath, readsSecrets, secretStdin } from './exfil.js';
import { SECRET_VAR } from './secret-sources.js';
import { HTTP_CLIENTS } from '../programs/http/request.js';
import { show, type CheckContext, type Io } from './types.js';

/** Clients that send their arguments, files or standard input to another machine. */
const NETWORK_SINKS = new Set(
  `mosquitto_pub mosquitto_rr mqttx mqtt grpcurl grpc_cli evans buf kcat kafkacat kafka-console-producer
  kafka-console-producer.sh nats websocat wscat smbclient tftp ncftpput curlie rabbitmqadmin amqp-publish pulsar-client
  stomp zmqc`.split(/\s+/),
);
/** Forges and paste tools that publish a body. */
const PUBLISHERS = new Set(['gh', 'glab', 'tea', 'hub', 'lab', 'jira', 'linear']);
/** A search for secrets by their names (`git log -p | grep -iE 'api_key|secret'`): what it prints is secrets. */
const SECRET_WORDS = /api[_-]?key|secret|token|passw(or)?d|private[_-]?key|credential|aws_access/i;

const secretWord = (w: Word): boolean =>
  w.substitutions.some((n) => readsSecrets(n.text)) || READS_SECRETS.test(w.text) || isCredentialPath(w.text);

function grepsSecrets(io: Io): boolean {
  return io.upstream.some((u) => {
    const a = u.argv;
    if (!a?.name || !/^(grep|egrep|rg|ag|ack|git)$/.test(a.name)) return false;
    if (a.name === 'git' && a.args[0]?.text !== 'grep') return false;
    return a.args.some((w) => !w.text.startsWith('-') && SECRET_WORDS.test(w.text));
  });
}

const readsStdin = (cmd: Argv): boolean =>
  cmd.args.some((a, i) => (a.text === '-' || a.text === '/dev/stdin' || /=(-|\/dev\/stdin)$/.test(a.text)) && i > 0);

/** A URL whose text carries a secret: a substitution that reads one, or (outside HTTP clients) a secret variable. */
function secretUrl(cmd: Argv): boolean {
  // printf's format puts a later argument into the URL (`printf '...?d=%s' "$(cat .env)"`).
  const format = cmd.name === 'printf' ? cmd.args.find((a) => !a.text.startsWith('-')) : undefined;
  if (
    format &&
    /\/\/[\w-]+\.[\w.-]+[^\s"'<>)]*%[sb]/.test(format.text) &&
    cmd.args.some((a) => a !== format && a.substitutions.some((n) => readsSecrets(n.text)))
  )
    return true;
  return cmd.args.some((a) => {
    // Substitutions stand as one token each, so a URL runs through them (`?k=$(grep KEY .env | cut -f2)`).
    let text = a.text;
    const secret = a.substitutions.map((n, i) => {
      text = text.replace(n.text, `__SUB${i}__`);
      return readsSecrets(n.text);
    });
    const url = /(https?:)?\/\/[\w-]+\.[\w.-]+[^\s"'<>)]*/i.exec(text)?.[0];
    // `//registry.npmjs.org/:_authToken=${NPM_TOKEN}` is how .npmrc names a registry's credential: a setting the
    // package manager sends only to that registry, not a link that is fetched or shown.
    if (!url || /^\/\/[^/\s]+\/(?:[^\s]*\/)?:_(authToken|auth|password)=/.test(url)) return false;
    const inUrl = secret.some((s, i) => s && url.includes(`__SUB${i}__`));
    return inUrl || (!HTTP_CLIENTS.includes(cmd.name ?? '') && SECRET_VAR.test(url));
  });
}

export function checkSecretSinks(cmd: Argv, io: Io, ctx: CheckContext): void {
  const name = cmd.name ?? '';
  const w = cmd.args.map((a) => a.text);
  const report = (why: string): void => ctx.add('exfiltration', `${show(cmd)} (${why})`);
  const substitutedSecret = cmd.args.some((a) => a.substitutions.some((n) => readsSecrets(n.text)));
  if (NETWORK_SINKS.has(name)) {
    if (secretStdin(io) || grepsSecrets(io)) report('secrets on standard input go over the network');
    else if (cmd.args.some(secretWord)) report('a secret in what it sends');
  }
  if (PUBLISHERS.has(name)) {
    if (readsStdin(cmd) && (secretStdin(io) || grepsSecrets(io))) report('secrets published as a body');
    else if (substitutedSecret) report('a secret published in a field');
  }
  if (
    name === 'git' &&
    /^(commit|tag|notes|stash)$/.test(w[0] ?? '') &&
    (substitutedSecret || (readsStdin(cmd) && secretStdin(io)))
  )
    report('a secret written into history, which every push carries');
  if (secretUrl(cmd)) report('a secret inside a URL, sent when the link is fetched or rendered');
}
