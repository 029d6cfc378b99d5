import { describe, expect, it } from 'vitest';
import { formatPrefix, parseUrlPrefix, prefixRefusal, UrlPrefixError } from './url-prefixes.ts';

describe('URL prefixes', () => {
  const entries = ['https://a.example.com/api', 'http://10.0.0.1:8080'].map(parseUrlPrefix);
  it.each([
    ['https://a.example.com/api/x', undefined],
    ['https://a.example.com:443/api', undefined],
    ['http://10.0.0.1:8080/anything', undefined],
    ['https://a.example.com/apix', 'unlisted'],
    ['https://a.example.com/api/../x', 'unlisted'],
    ['https://a.example.com/api/%2e%2e/x', 'unlisted'],
    ['https://a.example.com/api/..%2fx', 'an encoded separator'],
    ['https://a.example.com/api;x/..;/', "';'"],
    ['http://10.0.0.1/', 'unlisted'],
    ['nope', 'not an absolute URL'],
  ])('%s: %s', (url, refusal) => {
    const why = prefixRefusal(entries, url, 'unlisted');
    if (refusal === undefined) expect(why).toBeUndefined();
    else expect(why).toContain(refusal);
  });

  it('normalises an entry: default port dropped, trailing slash dropped', () => {
    expect(formatPrefix(parseUrlPrefix('https://A.example.com:443/api/'))).toBe('https://a.example.com/api');
  });

  it.each(['a.example.com', 'ftp://a', 'https://u@a', 'https://a/?q', 'https://a/%2f'])(
    'refuses %s',
    (raw) => {
      expect(() => parseUrlPrefix(raw)).toThrow(UrlPrefixError);
    },
  );
});
