import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ValidationErrorHook } from '@mastra/core/server';
// Mastra's schema routes only pass through their own copy of Hono's HTTPException.
import { HTTPException as MastraHTTPException } from '@mastra/server/server-adapter';
import { config } from '../../mastra.config.ts';
import { ApiError, errorBody, fromZodError, toApiError, type ErrorCode } from '../contract/errors.ts';
import './context.ts';

/**
 * The server's error exits. Every failure, ours or the framework's, leaves as
 * a SPEC error body: thrown errors (`errorHandler`), schema-route validation
 * (`validationErrorHandler`) and schema-route handler errors (`specErrors`).
 */
const CODE_FOR_STATUS: Record<number, ErrorCode> = { 404: 'NOT_FOUND', 429: 'RATE_LIMITED' };

function classify(error: unknown): ApiError {
  if (error instanceof HTTPException && error.status < 500) {
    return new ApiError(error.status, CODE_FOR_STATUS[error.status] ?? 'INVALID_REQUEST', error.message, {}, error);
  }
  return toApiError(error);
}

function jsonResponse(apiError: ApiError) {
  return Response.json(errorBody(apiError, config), { status: apiError.status });
}

export function errorHandler(error: Error, c: Context): Response {
  const apiError = classify(error);
  if (apiError.status >= 500) {
    c.get('mastra').getLogger().error('request failed', { traceId: c.get('traceId'), code: apiError.code, error });
  }
  return jsonResponse(apiError);
}

const SUBJECTS = { body: 'request body', query: 'query parameters', path: 'path parameters' } as const;

export const validationErrorHandler: ValidationErrorHook = (error, context) => {
  const apiError = fromZodError(error, SUBJECTS[context]);
  return { status: apiError.status, body: errorBody(apiError, config) };
};

/** Schema routes answer a thrown HTTPException with its own response: this makes every handler error SPEC's. */
export function specErrors<R extends { handler(params: any): Promise<unknown> }>(route: R): R {
  const handler = route.handler;
  return {
    ...route,
    async handler(params: unknown) {
      try {
        return await handler(params);
      } catch (error) {
        const apiError = classify(error);
        throw new MastraHTTPException(apiError.status as 400, { res: jsonResponse(apiError), cause: error });
      }
    },
  };
}
