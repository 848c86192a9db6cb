package server

import (
	"net/url"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
)

func TestQueryParserMatchesNamesCaseInsensitively(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  *authv1.User
	}{
		{"username=ann&merchantIds=1&merchantIds=2", &authv1.User{Username: "ann", MerchantIds: []int32{1, 2}}},
		{"UserName=ann&MerchantIds=3", &authv1.User{Username: "ann", MerchantIds: []int32{3}}},
		{"merchant_ids=4&IS_TEMPORARY_PASSWORD=true", &authv1.User{MerchantIds: []int32{4}, IsTemporaryPassword: true}},
		{"unknown=1", &authv1.User{}},
	}
	for _, tt := range tests {
		values, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		var got authv1.User
		if err := (&queryParser{}).Parse(&got, values, &utilities.DoubleArray{}); err != nil {
			t.Fatalf("Parse(%q): %v", tt.query, err)
		}
		if got.GetUsername() != tt.want.GetUsername() || len(got.GetMerchantIds()) != len(tt.want.GetMerchantIds()) ||
			got.GetIsTemporaryPassword() != tt.want.GetIsTemporaryPassword() {
			t.Errorf("Parse(%q) = %v, want %v", tt.query, &got, tt.want)
		}
	}
}
