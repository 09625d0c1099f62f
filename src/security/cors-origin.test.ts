import { describe, expect, it } from 'vitest';
import { createCorsOrigin } from './cors-origin.ts';

describe('createCorsOrigin', () => {
  it('echoes only the listed origins, exactly', () => {
    const origin = createCorsOrigin({ origins: ['https://app.example.com', 'http://localhost:3000'], allowLoopback: false });
    expect(origin('https://app.example.com')).toBe('https://app.example.com');
    expect(origin('http://localhost:3000')).toBe('http://localhost:3000');
    for (const other of ['https://app.example.com.evil.test', 'http://app.example.com', 'http://localhost:3001', 'null', '']) {
      expect(origin(other)).toBeNull();
    }
  });

  it('allows any loopback origin only when asked to', () => {
    const development = createCorsOrigin({ origins: [], allowLoopback: true });
    for (const loopback of ['http://localhost:5173', 'http://127.0.0.1:4111', 'https://localhost', 'http://[::1]:8080']) {
      expect(development(loopback)).toBe(loopback);
    }
    for (const other of ['http://localhost.evil.test', 'http://127.0.0.1.nip.io', 'https://app.example.com']) {
      expect(development(other)).toBeNull();
    }
    expect(createCorsOrigin({ origins: [], allowLoopback: false })('http://localhost:5173')).toBeNull();
  });
});
