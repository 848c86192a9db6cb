package main

import (
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/settings"
)

// TestFraudSettingDefaultPassesTheRules checks that the FraudDetection
// setting's default (the fraud rules' own defaults, settings.FraudDetection
// being fraud.Thresholds) passes the rules' own check, so the job runs with
// it until someone changes it.
func TestFraudSettingDefaultPassesTheRules(t *testing.T) {
	if err := settings.DefaultFraudDetection.Check(); err != nil {
		t.Fatalf("the default thresholds fail the rules' check: %v", err)
	}
}
