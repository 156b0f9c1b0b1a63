// Which operation a SQL statement is sent for, so that stopping the operation (its deadline, or
// its client going away) also stops its statements: the execution deadline runs each operation in
// a StatementScope (an AsyncLocalStorage store, carried through every await of its resolvers), and
// the database layer (client.ts) registers each statement it sends in the current scope. (No
// cheaper carrier exists on Node 20: a statement is sent deep inside Prisma's own promise chain,
// which takes no argument of ours; Node 24's AsyncContextFrame carries the store without a promise hook.)
// - On PostgreSQL a statement running when the operation stops is cancelled (the protocol's
//   CancelRequest for the connection's backend), and its connection is closed rather than
//   returned to the pool, so a late cancel can never hit another operation's statement.
// - On both databases, a statement the stopped operation's resolvers still try to send (while
//   their work unwinds) is refused before it starts. The embedded database cannot cancel a
//   statement already running: it runs in this process and ends first.
// An operation that ends in time ends its scope; a stopped one's scope stays stopped, so work
// that outlives the operation must start outside it (`outsideStatementScope`, as the job worker
// does when an operation wakes it).
import { AsyncLocalStorage } from "node:async_hooks";

/** A statement under way: how to cancel it. */
export interface RunningStatement {
  cancel(): void;
}

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i;

export class OperationStopped extends Error {
  constructor() {
    super("Statement not started: its operation was stopped (deadline or client gone)");
  }
}

/**
 * The statements of one operation. Its owner (the execution deadline) calls `stop()` when the
 * operation stops and `end()` when its execution settled in time; no signal or listener of its own
 * (issue 15: an AbortSignal and two listeners per operation cost more than the read's own work).
 */
export class StatementScope {
  /** Statements under way, made on the first one (an operation that sends none costs no Set). */
  private running: Set<RunningStatement> | undefined;
  private live = true;
  /** Set once by `stop()`. */
  protected halted = false;
  /** Statements cancelled in this scope (for tests and logs). */
  cancelled = 0;

  /** True while the operation is stopped and its work still unwinds: nothing new may start. */
  get stopped(): boolean {
    return this.live && this.halted;
  }

  /**
   * Throws OperationStopped when `sql` may not start. Transaction control always may: a
   * transaction of the stopped operation must still end (its ROLLBACK), or its connection would
   * go back to the pool, or the embedded database stay, inside it.
   */
  check(sql?: string): void {
    if (this.stopped && !(sql !== undefined && TRANSACTION_CONTROL.test(sql))) throw new OperationStopped();
  }

  /** Registers a statement about to run (`check` first); the returned function, called when it ends, unregisters it. */
  enter(statement: RunningStatement, sql?: string): () => void {
    this.check(sql);
    const running = (this.running ??= new Set());
    running.add(statement);
    return () => running.delete(statement);
  }

  /** The operation's execution has settled: its scope stops watching. */
  end(): void {
    this.live = false;
    this.running = undefined;
  }

  /**
   * The operation stopped (deadline, client gone): its running statements are cancelled, and none
   * may start. False when it was stopped already, or its execution had settled.
   */
  stop(): boolean {
    if (!this.live || this.halted) return false;
    this.halted = true;
    for (const statement of this.running ?? []) {
      this.cancelled++;
      statement.cancel();
    }
    return true;
  }
}

const scopes = new AsyncLocalStorage<StatementScope>();

/** Runs `work(...args)` (and everything it starts) as the statements of `scope`'s operation. */
export function runInStatementScope<T, A extends unknown[]>(scope: StatementScope, work: (...args: A) => T, ...args: A): T {
  return scopes.run(scope, work, ...args);
}

/** The scope of the statement about to be sent, if it is sent for an operation. */
export function currentStatementScope(): StatementScope | undefined {
  return scopes.getStore();
}

/** Runs `work` outside any operation's scope: for long-lived work an operation merely wakes. */
export function outsideStatementScope<T>(work: () => T): T {
  return scopes.exit(work);
}
