import { describe, expect, it } from 'vitest';
import { PUBLIC_ROUTES } from './route-gate.ts';
import { studioShell } from './studio-shell.ts';

describe('studioShell', () => {
  const isShell = studioShell(PUBLIC_ROUTES);

  it("is Studio's pages and files, read with GET or HEAD", () => {
    for (const path of ['/', '/agents', '/agents/companionAgent/threads/new', '/settings', '/assets/main-BU75WpCq.js', '/mastra-dark-tile.svg']) {
      expect(isShell('GET', path), path).toBe(true);
    }
    expect(isShell('HEAD', '/agents')).toBe(true);
    expect(isShell('POST', '/agents')).toBe(false);
    expect(isShell('DELETE', '/settings')).toBe(false);
  });

  it("is never the API, nor any of the service's own routes outside it", () => {
    for (const path of ['/api', '/api/', '/api/agents', '/api/auth/capabilities', '/api/memory/threads']) {
      expect(isShell('GET', path), path).toBe(false);
    }
    for (const path of ['/threads', '/threads/diary', '/threads/diary/messages', '/stt', '/docs', '/docs/init.js', '/docs/swagger-ui.css', '/health', '/ready']) {
      expect(isShell('GET', path), path).toBe(false);
    }
  });
});
