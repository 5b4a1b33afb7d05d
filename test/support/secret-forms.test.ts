// The secret scanner finds every form of a registered secret in surrounding text, once per secret, and nothing in
// text that holds none.
import { expect, it } from 'vitest';
import { namedForms, randomSecret, SecretScanner } from './secret-forms.js';

const base32 = (text: string): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of Buffer.from(text)) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i + 5 <= bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
};

it('finds a secret however it was transformed, wherever it sits in the text', () => {
  const value = randomSecret();
  const scanner = new SecretScanner<string>();
  scanner.add(value, 'aws');
  const transformed: [string, string][] = [
    ['as is', `key=${value}\n`],
    ['reversed', `x ${[...value].reverse().join('')} y`],
    ['upper case', value.toUpperCase()],
    ['hex', Buffer.from(`secret = ${value}`).toString('hex')],
    ...['', 'a', 'ab'].map((pad): [string, string] => [
      'base64',
      Buffer.from(`${pad}[default]\n${value}\n`).toString('base64'),
    ]),
    ...['', 'a', 'ab', 'abc', 'abcd'].map((pad): [string, string] => ['base32', base32(`${pad}${value}!`)]),
    ['a piece', `…${value.slice(4, 12)}…`],
  ];
  for (const [form, text] of transformed)
    expect(
      scanner.find(text).map((f) => f.form),
      form,
    ).toEqual([form]);
  expect(scanner.find(`a ${value} and ${value}`)).toHaveLength(1);
  expect(scanner.find(`name.${value.toLowerCase()}.evil.example`, true)[0]?.tag).toBe('aws');
});

it('finds nothing in text that holds none of the secrets', () => {
  const scanner = new SecretScanner<number>();
  for (let i = 0; i < 50; i += 1) scanner.add(randomSecret(), i);
  const text = Array.from({ length: 200 }, () => randomSecret(40)).join('\n') + 'total 28\ndrwxr-xr-x 2 root root';
  expect(scanner.find(text)).toEqual([]);
  expect(namedForms(randomSecret()).every((f) => f.form.length >= 8)).toBe(true);
});
