package main

import (
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/settings"
)

// TestFraudSettingDefaultsAreTheRules checks that the FraudDetection
// setting's default is the fraud rules' own: the page shows what the job
// uses until someone changes it. It also holds every field of the two types
// to one order and type (the conversion would not compile otherwise).
func TestFraudSettingDefaultsAreTheRules(t *testing.T) {
	if got, want := fraud.Thresholds(settings.DefaultFraudDetection), fraud.DefaultThresholds(); got != want {
		t.Fatalf("settings.DefaultFraudDetection = %+v, fraud.DefaultThresholds() = %+v", got, want)
	}
	if err := fraud.Thresholds(settings.DefaultFraudDetection).Check(); err != nil {
		t.Fatalf("the default thresholds fail the rules' check: %v", err)
	}
}
