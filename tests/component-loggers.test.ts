/**
 * Mastra's primitives share one child logger per component (a patch of @mastra/core: a run built eleven pino children,
 * all alike). Sharing holds only where a child shares its family's observability context; a logger whose children copy
 * it as they are made still gives each primitive a child of its own.
 */
import { MastraBase } from '@mastra/core/base';
import { ConsoleLogger } from '@mastra/core/logger';
import { PinoLogger } from '@mastra/loggers';
import { expect, it } from 'vitest';

/** A primitive's logger is protected: a subclass reads it. */
class Primitive extends MastraBase {
  get childLogger() {
    return this.logger;
  }
}

const primitive = (component: 'LLM' | 'WORKFLOW', logger: PinoLogger | ConsoleLogger) => {
  const base = new Primitive({ component, name: 'test' });
  base.__setLogger(logger);
  return base.childLogger;
};

it('gives the primitives of a component one child of a pino logger, bound to that component', () => {
  const logger = new PinoLogger({ name: 'test', level: 'silent' });
  const [model, stream, workflow] = [primitive('LLM', logger), primitive('LLM', logger), primitive('WORKFLOW', logger)];
  expect(stream).toBe(model);
  expect(workflow).not.toBe(model);
  const bindings = (child: unknown) => (child as { logger: { bindings(): Record<string, unknown> } }).logger.bindings();
  expect(bindings(model)).toMatchObject({ component: 'LLM' });
  expect(bindings(workflow)).toMatchObject({ component: 'WORKFLOW' });
});

it("still gives each primitive its own child of a logger whose children copy the observability context (Mastra's console logger)", () => {
  const logger = new ConsoleLogger({ name: 'test' });
  expect(primitive('LLM', logger)).not.toBe(primitive('LLM', logger));
});
