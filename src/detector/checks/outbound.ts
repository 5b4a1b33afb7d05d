// Acting on the user's behalf towards other people: email, chat and SMS messages (mail clients, chat webhooks,
// messaging APIs and CLIs), public comments, and money moved through payment APIs. None can be taken back once sent,
// so each asks. Reading (GET, listing, logs) stays ordinary. Pure.
import { parseFlags } from '../engine/argv.js';
import { show, when, type Check } from './types.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';
import type { ForgeCheck } from '../programs/forge/call.js';

/** Endpoints that deliver a message to people: chat webhooks, email, SMS and paging APIs. */
const MESSAGE_URL = new RegExp(
  [
    String.raw`hooks\.slack\.com/`,
    String.raw`slack\.com/api/(chat\.|files\.(upload|complete)|conversations\.(invite|open))`,
    String.raw`discord(app)?\.com/api/(v\d+/)?(webhooks|channels/\d+/messages)`,
    String.raw`api\.telegram\.org/bot[^/]*/send`,
    String.raw`api\.twilio\.com/.*/(Messages|Calls)(\.json)?\b`,
    String.raw`api\.sendgrid\.com/v3/mail/send`,
    String.raw`api\.(eu\.)?mailgun\.net/.*/messages`,
    String.raw`api\.postmarkapp\.com/email`,
    String.raw`api\.resend\.com/emails`,
    String.raw`api\.brevo\.com/v3/smtp/email|api\.sendinblue\.com/v3/smtp/email`,
    String.raw`mandrillapp\.com/api/.*/messages/send`,
    String.raw`api\.sparkpost\.com/api/v1/transmissions`,
    String.raw`graph\.microsoft\.com/.*/(sendMail|messages|chats/)`,
    String.raw`gmail\.googleapis\.com/.*/messages/send`,
    String.raw`(outlook\.office(365)?\.com/webhook|\.webhook\.office\.com/)`,
    String.raw`chat\.googleapis\.com/v1/spaces/`,
    String.raw`api\.pushover\.net/`,
    String.raw`events\.pagerduty\.com/|api\.opsgenie\.com/v2/alerts`,
    String.raw`api\.vonage\.com/|rest\.nexmo\.com/sms`,
    String.raw`api\.messagebird\.com/messages`,
  ].join('|'),
  'i',
);

/** Payment APIs: a write there charges, refunds or pays out money. */
const PAYMENT_URL =
  /api\.stripe\.com\/v1\/|api(-m)?(\.sandbox)?\.paypal\.com\/v[12]\/(payments|checkout|billing)|connect\.squareup\.com\/v2\/(payments|refunds|payouts)|api\.braintreegateway\.com\/|checkout(-test)?\.adyen\.com\/|api\.coinbase\.com\/v2\/accounts\/[^/]+\/transactions|api\.wise\.com\/v\d\/(transfers|quotes)/i;

/** A request that writes to a messaging or payment API. */
export const outboundRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const urls = cmd.args.map((a) => a.text).filter((t) => /[\w-]+\.[a-z]{2,}/i.test(t));
  if (!req.writes) return;
  if (urls.some((u) => MESSAGE_URL.test(u))) ctx.add('send-message', show(cmd));
  if (urls.some((u) => PAYMENT_URL.test(u))) ctx.add('payment', show(cmd));
};

/** mail, sendmail, swaks, mutt, msmtp: sending to an address (reading a mailbox stays ordinary). */
const mailer: Check = (cmd, io, ctx) => {
  const args = cmd.args.map((a) => a.text);
  const sends =
    cmd.name === 'swaks' ||
    args.some((a) => /^[^@\s/]+@[\w-]+(\.[\w-]+)+$/.test(a.replace(/^--?\w+=/, ''))) ||
    args.includes('-t') ||
    io.upstream.length > 0 ||
    io.stdinText !== undefined;
  if (sends && !args.includes('-f') && !args.includes('--help')) ctx.add('send-message', show(cmd));
};

/** gh/glab: comments speak in the user's name; `pr merge --admin` goes past branch protection. */
export const forgeMessage: ForgeCheck = ({ object, verb }, cmd, _io, ctx) => {
  if (/^(issue|pr|mr)$/.test(object ?? '') && /^(comment|note)$/.test(verb ?? '')) ctx.add('send-message', show(cmd));
  if (/^(pr|mr)$/.test(object ?? '') && verb === 'merge' && cmd.args.some((a) => a.text === '--admin'))
    ctx.add('access-grant', `${show(cmd)} (merges past branch protection)`);
};

judges(import.meta.url, {
  'mail mailx s-nail sendmail swaks mutt neomutt msmtp ssmtp sendemail': mailer,
  // The stripe CLI: a write to the account (create, update, delete, refunds, payouts), not listen/logs/trigger.
  stripe: when('payment', (_w, cmd) => {
    const w = parseFlags(cmd.args, ['--api-key', '-d', '--data', '--project-name']).operands.map((o) => o.text);
    return (
      /^(post|delete)$/.test(w[0] ?? '') ||
      /^(create|update|delete|cancel|capture|confirm|pay|void|finalize|reverse)$/.test(w[1] ?? '')
    );
  }),
  // A resource CLI's compound verb that sends email or SMS (ses send-email, sns publish, messages:create).
  'aws twilio az gcloud': when('send-message', (_w, cmd) => {
    const words = parseFlags(cmd.args, []).operands.map((o) => o.text.toLowerCase());
    const parts = words.slice(0, 4).flatMap((w) => w.split(/[-:_.]/));
    const sendVerb =
      parts.some((p) => /^(send|publish)$/.test(p)) || (cmd.name === 'twilio' && parts.includes('create'));
    return (
      (sendVerb && parts.some((p) => /^(e?mails?|sms|messages?|texts?)$/.test(p)) && !parts.includes('sqs')) ||
      (words[0] === 'sns' && words[1] === 'publish')
    );
  }),
});
