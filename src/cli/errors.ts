/**
 * A failure the operator can act on: its message is one line that says what went wrong and what to
 * do, so it is printed as is, without a stack trace. The exit code tells scripts which kind it is.
 */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}

/** The command line itself is wrong (unknown command, missing or malformed option): exit code 2. */
export class UsageError extends OperatorError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}
