package grpcapi_test

import (
	"slices"
	"testing"

	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	"github.com/paygate/paygate/services/aggregator/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// TestRulesTreatCustomRolesAsBuiltIn: a custom role with a built-in role's
// flag and permissions gets exactly its access (docs/access.md).
func TestRulesTreatCustomRolesAsBuiltIn(t *testing.T) {
	t.Parallel()
	authz.CheckCustomTwins(t, grpcapi.Rules)
}

// TestSetJobEnabledIsForAdmins: switching a job was "role Admin"; restated
// as access.ReqChangeJobs it admits the built-in Admin alone (Support holds
// Jobs Access but not Settings Access).
func TestSetJobEnabledIsForAdmins(t *testing.T) {
	t.Parallel()
	if got := authz.Admitted(grpcapi.Rules[aggregatorv1.JobService_SetJobEnabled_FullMethodName]); !slices.Equal(got, []string{access.RoleAdmin}) {
		t.Errorf("SetJobEnabled admits %v, want Admin only", got)
	}
}
