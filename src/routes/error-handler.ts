import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { config } from '../../mastra.config.ts';
import { ApiError, errorBody, toApiError, type ErrorCode } from '../contract/errors.ts';
import './context.ts';

const CODE_FOR_STATUS: Record<number, ErrorCode> = { 404: 'NOT_FOUND', 429: 'RATE_LIMITED' };

/** The server's one error exit: every failure, ours or the framework's, leaves as a SPEC error body. */
export function errorHandler(error: Error, c: Context): Response {
  const apiError =
    error instanceof HTTPException && error.status < 500
      ? new ApiError(error.status, CODE_FOR_STATUS[error.status] ?? 'INVALID_REQUEST', error.message, {}, error)
      : toApiError(error);
  if (apiError.status >= 500) {
    c.get('mastra').getLogger().error('request failed', { traceId: c.get('traceId'), code: apiError.code, error });
  }
  return c.json(errorBody(apiError, config), apiError.status as 400);
}
