import { describe, expect, it } from 'vitest';
import { bearerToken } from './bearer-token.ts';

describe('bearerToken', () => {
  it('takes the token68 after "Bearer "', () => {
    expect(bearerToken('Bearer abc.DEF-ghi_jkl~mno+pqr/stu==')).toBe('abc.DEF-ghi_jkl~mno+pqr/stu==');
  });

  it.each([undefined, null, '', 'Bearer', 'Bearer ', 'bearer abc', 'BEARER abc', 'Basic YWxpY2U6cHc=', 'Bearer abc def', 'Bearer abc,Bearer def', 'Bearer a=b', 'Bearerabc'])(
    'finds no bearer token in %j',
    (header) => {
      expect(bearerToken(header)).toBeUndefined();
    },
  );
});
