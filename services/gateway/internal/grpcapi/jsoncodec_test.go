package grpcapi_test

import (
	"bytes"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/server"
)

// The REST codec matches field names without regard to case; the keys of
// the settings maps are data and must reach the handlers as sent, even when
// they look like a field name of the request.
func TestRESTCodecKeepsSettingsKeys(t *testing.T) {
	t.Parallel()
	codec := server.NewJSONMarshaler()
	tests := []struct {
		name string
		body string
		into proto.Message
		want proto.Message
	}{
		{
			"update settings",
			`{"CollabId": 7, "Settings": {"IsEnabled": "false", "AwailableOnlyOnDirectAccess": "true", "collabId": "x", "SETTINGS": "y"},
			  "PayTypeSettings": [{"PayTypeId": 1, "IsCashInEnabled": false}]}`,
			&gatewayv1.UpdateCollabSettingsRequest{},
			&gatewayv1.UpdateCollabSettingsRequest{
				CollabId:        7,
				Settings:        map[string]string{"IsEnabled": "false", "AwailableOnlyOnDirectAccess": "true", "collabId": "x", "SETTINGS": "y"},
				PayTypeSettings: []*gatewayv1.PayTypeChannels{{PayTypeId: 1, IsCashInEnabled: proto.Bool(false)}},
			},
		},
		{
			"initialize, PascalCase",
			`{"ProviderId": 1, "MerchantId": 2, "PayTypeIds": [1, 2],
			  "PayTypeSettings": [{"PayTypeId": 2, "IsCashInEnabled": true, "IsCashOutEnabled": false}],
			  "CollabSettings": {"Mode": "2", "Position": "", "ProviderId": "kept"}}`,
			&gatewayv1.InitializeCollabRequest{},
			&gatewayv1.InitializeCollabRequest{
				ProviderId: 1, MerchantId: 2, PayTypeIds: []int32{1, 2},
				PayTypeSettings: []*gatewayv1.PayTypeChannels{{PayTypeId: 2, IsCashInEnabled: proto.Bool(true), IsCashOutEnabled: proto.Bool(false)}},
				CollabSettings:  map[string]string{"Mode": "2", "Position": "", "ProviderId": "kept"},
			},
		},
		{
			"limits, absent amounts stay absent",
			`{"CollabId": 3, "MinimalDepositAmount": "", "maximalwithdrawamount": "10.00"}`,
			&gatewayv1.UpdateCollabLimitsRequest{},
			&gatewayv1.UpdateCollabLimitsRequest{CollabId: 3, MinimalDepositAmount: proto.String(""), MaximalWithdrawAmount: proto.String("10.00")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := codec.Unmarshal([]byte(tt.body), tt.into); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(tt.into, tt.want) {
				t.Errorf("decoded %v\nwant %v", tt.into, tt.want)
			}
		})
	}

	t.Run("bare pay type list", func(t *testing.T) {
		t.Parallel()
		var got []*gatewayv1.NewCollabPayType
		body := `[{"PayTypeId": 4, "IsCashOutEnabled": true, "MinimalWithdrawalAmount": "50"}]`
		if err := codec.NewDecoder(bytes.NewReader([]byte(body))).Decode(&got); err != nil {
			t.Fatal(err)
		}
		want := &gatewayv1.NewCollabPayType{PayTypeId: 4, IsCashOutEnabled: proto.Bool(true), MinimalWithdrawalAmount: proto.String("50")}
		if len(got) != 1 || !proto.Equal(got[0], want) {
			t.Errorf("decoded %v", got)
		}
		var ids []int32
		if err := codec.NewDecoder(bytes.NewReader([]byte(`[3, 4]`))).Decode(&ids); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids, []int32{3, 4}) {
			t.Errorf("ids = %v", ids)
		}
	})

	t.Run("settings answer keys", func(t *testing.T) {
		t.Parallel()
		b, err := codec.Marshal(&gatewayv1.CollabSettings{
			CollabId: 1, Settings: map[string]string{"IsEnabled": "true"},
			PayTypeSettings: []*gatewayv1.CollabPayTypeSettings{{PayTypeId: 1, IsCashInEnabled: true}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"settings":{"IsEnabled":"true"}`, `"IsCashInEnabled":true`, `"IsCashOutEnabled":false`, `"payTypeId":1`} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s lacks %s", b, want)
			}
		}
	})
}
