/** Failures on the client side, before or beside an answer from the daemon. */

export type ClientErrorKind =
  | 'NoDaemon' // nothing answers on the socket and it could not be started
  | 'Timeout' // the deadline passed
  | 'ConnectionLost' // the daemon went away while a call was waiting
  | 'VersionMismatch' // the daemon speaks another protocol version
  | 'BadResponse' // the daemon sent something that is not JSON-RPC
  | 'UnsafeSocket' // the socket or its dir is not this user's alone: it may not be memd's
  | 'Closed'; // the client was closed

export class ClientError extends Error {
  override name = 'ClientError';
  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
