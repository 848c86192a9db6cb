import { Box, List, Text, VisuallyHidden } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import type {
  CheckPasswordRequestJson,
  CheckPasswordResponseJson,
  GetPasswordPolicyResponseJson,
} from '@paygate/gen/auth/v1/auth_settings_pb';
import { useEffect, useState } from 'react';
import { api } from './console';

/**
 * The password policy of the auth service (docs/contracts-second-factor.md,
 * "Password policy"), for the forms that set a password: the rules a form can
 * check as the user types, and the common-password rule, which the server
 * answers (its list of ≥ 10,000 entries stays on the server).
 */

/** PasswordRuleId names one rule, as the server's PASSWORD_RULE_* without the prefix, plus 'current'. */
export type PasswordRuleId = 'required' | 'blank' | 'tooShort' | 'tooLong' | 'username' | 'common' | 'current';

/** PasswordProblem is one rule a password breaks, with a sentence naming the field. */
export interface PasswordProblem {
  rule: PasswordRuleId;
  message: string;
}

/** The bounds until the server answered (its defaults). */
export const DEFAULT_PASSWORD_MIN_LENGTH = 12;
export const DEFAULT_PASSWORD_MAX_LENGTH = 128;

/** LocalPasswordContext is what the local rules compare a password with. */
export interface LocalPasswordContext {
  /** The JSON name of the field, for the sentences ("password", "newPassword"). */
  field?: string;
  username?: string;
  /** The current password, when the form asks for it (a new one must differ). */
  current?: string;
  minLength?: number;
  maxLength?: number;
}

/**
 * localPasswordProblems checks the rules that need no server, in the server's
 * order and with its sentences: required, not blank, length, not the username
 * (ignoring case and surrounding spaces), not the current password.
 */
export function localPasswordProblems(password: string, ctx: LocalPasswordContext = {}): PasswordProblem[] {
  const field = ctx.field ?? 'password';
  const min = ctx.minLength ?? DEFAULT_PASSWORD_MIN_LENGTH;
  const max = ctx.maxLength ?? DEFAULT_PASSWORD_MAX_LENGTH;
  if (password === '') return [{ rule: 'required', message: `${field} is required.` }];
  if (password.trim() === '') return [{ rule: 'blank', message: `${field} must not be blank: it has only spaces.` }];
  const out: PasswordProblem[] = [];
  const length = [...password].length;
  if (length < min) out.push({ rule: 'tooShort', message: `${field} must be at least ${min} characters long.` });
  if (length > max) out.push({ rule: 'tooLong', message: `${field} must be at most ${max} characters long.` });
  const username = ctx.username?.trim() ?? '';
  if (username !== '' && password.trim().toLowerCase() === username.toLowerCase()) {
    out.push({ rule: 'username', message: `${field} must not be the username.` });
  }
  if (ctx.current !== undefined && ctx.current !== '' && password === ctx.current) {
    out.push({ rule: 'current', message: `${field} must differ from your current password.` });
  }
  return out;
}

/** passwordPolicyQuery reads the bounds (GET {authUrl}/api/v1/password-policy). */
export function passwordPolicyQuery() {
  return {
    queryKey: ['auth', 'password-policy'] as const,
    queryFn: () => api.get<GetPasswordPolicyResponseJson>('auth', '/api/v1/password-policy'),
    staleTime: 10 * 60_000,
  };
}

/** checkCommonPassword asks the server whether password is one of its common passwords. */
export async function checkCommonPassword(password: string, username?: string, signal?: AbortSignal): Promise<boolean> {
  const body: CheckPasswordRequestJson = { password, username };
  const res = await api.post<CheckPasswordResponseJson>('auth', '/api/v1/password-policy/check', body, { signal });
  return (res?.problems ?? []).some((p) => p.rule === 'PASSWORD_RULE_COMMON');
}

/** The delay after the last keystroke before the server is asked. */
export const COMMON_CHECK_DELAY_MS = 400;

/** PasswordPolicyState is the live verdict on a password. */
export interface PasswordPolicyState {
  problems: PasswordProblem[];
  /** True while the server's common-password answer for this password is awaited. */
  checking: boolean;
  /** True when no rule is broken and the server's answer is in. */
  acceptable: boolean;
  minLength: number;
}

/**
 * usePasswordPolicy checks password as the user types: the local rules at
 * once, the common-password rule from the server after a pause (only for a
 * password the local rules accept). A failed server check does not block the
 * form: the server checks again when the password is submitted.
 */
export function usePasswordPolicy(password: string, ctx: Omit<LocalPasswordContext, 'minLength' | 'maxLength'> = {}): PasswordPolicyState {
  const policy = useQuery(passwordPolicyQuery());
  const minLength = policy.data?.minLength ?? DEFAULT_PASSWORD_MIN_LENGTH;
  const maxLength = policy.data?.maxLength ?? DEFAULT_PASSWORD_MAX_LENGTH;
  const local = localPasswordProblems(password, { ...ctx, minLength, maxLength });
  const [common, setCommon] = useState<{ password: string; common: boolean } | null>(null);
  const needsServer = local.length === 0;
  const { username } = ctx;

  useEffect(() => {
    if (!needsServer) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      checkCommonPassword(password, username || undefined, controller.signal).then(
        (isCommon) => setCommon({ password, common: isCommon }),
        () => {
          if (!controller.signal.aborted) setCommon({ password, common: false });
        },
      );
    }, COMMON_CHECK_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [password, username, needsServer]);

  const answered = common?.password === password;
  const problems =
    answered && common.common
      ? [...local, { rule: 'common' as const, message: `${ctx.field ?? 'password'} is too common; choose one that is harder to guess.` }]
      : local;
  const checking = needsServer && !answered;
  return { problems, checking, acceptable: problems.length === 0 && !checking, minLength };
}

/** The rules the feedback lists, with the words a person reads. */
function ruleLines(minLength: number, withCurrent: boolean): { rule: PasswordRuleId[]; text: string }[] {
  const lines: { rule: PasswordRuleId[]; text: string }[] = [
    { rule: ['required', 'blank', 'tooShort', 'tooLong'], text: `At least ${minLength} characters, not only spaces` },
    { rule: ['username'], text: 'Not the username' },
    { rule: ['common'], text: 'Not a common password' },
  ];
  if (withCurrent) lines.push({ rule: ['current'], text: 'Not your current password' });
  return lines;
}

/** PasswordPolicyFeedbackProps: the state of usePasswordPolicy and whether the form asks for the current password. */
export interface PasswordPolicyFeedbackProps {
  state: PasswordPolicyState;
  password: string;
  withCurrent?: boolean;
  id?: string;
}

/**
 * PasswordPolicyFeedback lists the rules with a mark for each — met, broken,
 * or (common-password rule) being checked — and announces changes politely
 * to screen readers. Point the password input's aria-describedby at id.
 */
export function PasswordPolicyFeedback({ state, password, withCurrent = false, id }: PasswordPolicyFeedbackProps) {
  const broken = new Set(state.problems.map((p) => p.rule));
  return (
    <Box id={id} aria-live="polite" fontSize="sm">
      <List.Root listStyle="none" gap={1} ms={0}>
        {ruleLines(state.minLength, withCurrent).map((line) => {
          const isBroken = line.rule.some((r) => broken.has(r));
          const pending = line.rule.includes('common') && state.checking;
          const untouched = password === '';
          const mark = untouched ? '•' : isBroken ? '✗' : pending ? '…' : '✓';
          const status = untouched ? '' : isBroken ? ' (not met)' : pending ? ' (checking)' : ' (met)';
          return (
            <List.Item key={line.text} color={untouched || pending ? 'fg.muted' : isBroken ? 'fg.error' : 'fg.success'} data-rule={line.rule[0]}>
              <Text as="span" aria-hidden="true" me={2}>
                {mark}
              </Text>
              {line.text}
              <VisuallyHidden>{status}</VisuallyHidden>
            </List.Item>
          );
        })}
      </List.Root>
    </Box>
  );
}
