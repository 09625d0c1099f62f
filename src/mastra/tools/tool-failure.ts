/**
 * @module tool-failure
 *
 * A tool's failure as the model is told it (the message) and as the log keeps it (the reason and the
 * upstream status: the message can quote the user's words, a place name, so it is never logged).
 */
export type ToolFailureReason = 'not-found' | 'invalid-input' | 'timeout' | 'unreachable' | 'upstream-status' | 'unexpected-response';

export class ToolFailure extends Error {
  override name = 'ToolFailure';
  readonly reason: ToolFailureReason;
  readonly upstreamStatus?: number;

  constructor(message: string, reason: ToolFailureReason, options: { upstreamStatus?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.reason = reason;
    if (options.upstreamStatus !== undefined) this.upstreamStatus = options.upstreamStatus;
  }
}
