package secondfactor

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MsgConfirmCodeWrong refuses a wrong, reused or badly formed code of a
// confirmation (step-up).
const MsgConfirmCodeWrong = "The code is not valid. Enter the current code from your authenticator app."

// Enrolled reports whether userID has an enrolled TOTP key (a confirmation
// can then be made with a code).
func (s *Service) Enrolled(ctx context.Context, userID int64) (bool, error) {
	st, err := s.store.SecondFactorStatus(ctx, userID)
	return st.Enrolled, err
}

// VerifyCode checks a TOTP code of userID for a confirmation (step-up): a
// code of a step within Skew of now, later than the last code accepted,
// which it spends; throttled like the sign-in's code step. It returns the
// code's step.
//
// Errors: Unauthenticated (MsgConfirmCodeWrong), TooManyRequests.
func (s *Service) VerifyCode(ctx context.Context, userID int64, code, ip string) (int64, error) {
	code, ok := NormalizeCode(code)
	if !ok {
		return 0, apperr.Invalid("totpCode must be the 6 digits your authenticator app shows.")
	}
	if err := s.checkThrottle(ctx, userID, ip); err != nil {
		return 0, err
	}
	var step int64
	err := s.store.SecondFactorTx(ctx, func(tx Tx) error {
		key, err := tx.KeyForUpdate(ctx, userID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && key.ConfirmedAt == nil) {
			return nil
		}
		if err != nil {
			return err
		}
		secret, err := s.sealer.OpenID(key.KeyID, key.Sealed, aad(userID))
		if err != nil {
			return fmt.Errorf("open totp secret of user %d: %w", userID, err)
		}
		st, err := matchStep(secret, code, s.now())
		if err != nil || st == 0 {
			return err
		}
		used, err := tx.UseStep(ctx, userID, st)
		if err != nil || !used {
			return err
		}
		step = st
		return nil
	})
	if err != nil {
		return 0, err
	}
	if step == 0 {
		s.recordWrong(ctx, userID, ip)
		return 0, apperr.Unauthenticated(MsgConfirmCodeWrong)
	}
	return step, nil
}

// CodeAt returns userID's code of a step, to re-verify a TOTP proof.
//
// Errors: NotFound (no enrolled key).
func (s *Service) CodeAt(ctx context.Context, userID, step int64) (string, error) {
	var code string
	err := s.store.SecondFactorTx(ctx, func(tx Tx) error {
		key, err := tx.KeyForUpdate(ctx, userID)
		if err != nil {
			return err
		}
		if key.ConfirmedAt == nil {
			return apperr.NotFound("No second factor is enrolled.")
		}
		secret, err := s.sealer.OpenID(key.KeyID, key.Sealed, aad(userID))
		if err != nil {
			return fmt.Errorf("open totp secret of user %d: %w", userID, err)
		}
		code, err = codeAt(secret, step)
		return err
	})
	return code, err
}
