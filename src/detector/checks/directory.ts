// Directory and realm accounts: Kerberos principals added, changed or removed through kadmin queries, LDAP entries
// modified, added or deleted on a directory server, FreeIPA/Samba users and group members. Reads (ldapsearch,
// `kadmin -q listprincs`) stay ordinary. Pure.
import { show, when, type Check } from './types.js';
import { judges } from './registry.js';

/** kadmin queries that add, change or remove a principal or its keys. */
const PRINCIPAL_CHANGE =
  /^\s*(add_?principal|addprinc|ank|delete_?principal|delprinc|modify_?principal|modprinc|change_?password|cpw|ktadd|xst|ktremove)\b/i;

/** ipa and samba-tool verbs (`user-add`, `group-add-member`, `group addmembers`) that change accounts or memberships. */
const ACCOUNT_CHANGE =
  /(user|group|principal|host|service|role|privilege|sudorule)s?-(add|create|mod|del|delete|remove|setpassword|enable)|-(add|remove)-?member|addmembers|removemembers/;

/** kadmin -q 'addprinc ...': the query's first word says what it does. */
const kadmin: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  const q = w.find((t, i) => /^(-q|--query)$/.test(w[i - 1] ?? '')) ?? w.filter((t) => !t.startsWith('-')).at(-1);
  if (PRINCIPAL_CHANGE.test(q ?? '')) ctx.add('account-change', `${show(cmd)} (a realm principal changed)`);
};

/** ldapmodify/ldapadd/ldapdelete/ldappasswd change entries (users, groups, members, passwords); -n only shows. */
const ldapWrite = when('account-change', (w) => !w.includes('-n'), 'directory entries changed');

/** ipa user-add, ipa group-add-member, samba-tool user create: accounts and memberships. */
const realmCli: Check = (cmd, _io, ctx) => {
  const w = cmd.args.filter((a) => !a.text.startsWith('-')).map((a) => a.text);
  const verb = cmd.name === 'ipa' ? (w[0] ?? '') : `${w[0] ?? ''}-${w[1] ?? ''}`;
  if (ACCOUNT_CHANGE.test(verb)) ctx.add('account-change', `${show(cmd)} (directory accounts changed)`);
};

judges(import.meta.url, {
  'kadmin kadmin.local': kadmin,
  'ldapmodify ldapadd ldapdelete ldapmodrdn ldappasswd': ldapWrite,
  'ipa samba-tool': realmCli,
});
