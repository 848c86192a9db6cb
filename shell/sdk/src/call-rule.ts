import type { Permission } from './access';
import type { RequirementName } from './requirement';

/**
 * CallRule is one row of a service's authorization table as the server
 * enforces it (Go: authz.Rule, services/internal/authz/rules.go), generated
 * into ./call-rules/*.gen.ts from the services' Rules tables.
 */
export interface CallRule {
  /** The method's REST routes, "VERB /path" with path variables by JSON name; none for a gRPC-only method. */
  readonly http: readonly string[];
  readonly rule: {
    /** Anyone may call, signed in or not. */
    readonly public?: boolean;
    /** Only the deployment's own services may call (never a user). */
    readonly internal?: boolean;
    /** Any signed-in user may call (when permissions and requires are empty). */
    readonly authenticated?: boolean;
    /** The caller needs at least one of them. */
    readonly permissions?: readonly Permission[];
    /** The caller must also meet this requirement (docs/access.md); rules never name a role. */
    readonly requires?: RequirementName;
    /** A caller whose password is temporary is let in too. */
    readonly allowTemporaryPassword?: boolean;
  };
}
