// What fastify logs of each request, at levels that keep a normal run quiet:
// a request arriving and completing is debug, a 5xx response warn, a request
// that errored (its error not handled) error. Handled errors are logged where
// they are handled (plugins/errors.ts: an unexpected one at error).
import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = { res: reply, responseTime: reply.elapsedTime, method: request.method, url: request.url };
    if (error) reply.log.error({ ...fields, err: error }, "request errored");
    else if (reply.statusCode >= 500) reply.log.warn(fields, "request completed");
    else reply.log.debug(fields, "request completed");
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug(`no route ${request.method} ${request.url}`);
  }
}
