// Package sensitive holds the list of sensitive actions (docs/contracts-approvals.md): the changes
// that carry proof of who approved exactly what, and that a team may put under four-eyes approval.
// It also holds the canonical description of a call that such proof signs, the challenge derived
// from it and the claims of a confirmation token. It is a primitive: values and pure functions.
package sensitive

import "slices"

// Action is one kind of sensitive change.
type Action struct {
	// Name is the action's stable name ("fee.update"): settings, policies and tokens use it.
	Name string
	// Method is the full gRPC method that performs it.
	Method string
	// Title says in plain words what the action does ("Change a fee").
	Title string
	// Targets are the request's fields (JSON names) that identify what changes.
	Targets []string
	// Secrets are the request's fields (JSON names, top level or inside a map) whose values are
	// signed as their SHA-256 and never stored or echoed.
	Secrets []string
	// ReasonRequired: the change is refused without a reason.
	ReasonRequired bool
	// Amount is the observed field holding the amount a threshold compares ("" when none);
	// Currency the observed field holding its currency.
	Amount, Currency string
	// Count is the request field holding the list whose length a count threshold compares, or
	// the number itself (a bulk run's expectedCount).
	Count string
	// AlwaysStepUp: the action always needs step-up, whatever the setting (approving a request).
	AlwaysStepUp bool
}

// Catalogue is the one list of sensitive actions, in the order the docs show them.
var Catalogue = []Action{
	{Name: "transaction.set_status", Method: "/paygate.gateway.v1.TransactionService/SetTransactionStatus", Title: "Change a transaction's status",
		Targets: []string{"id"}, ReasonRequired: true, Amount: "amount", Currency: "currency"},
	{Name: "transaction.cancel", Method: "/paygate.gateway.v1.TransactionService/CancelTransaction", Title: "Cancel a transaction",
		Targets: []string{"id"}, ReasonRequired: true, Amount: "amount", Currency: "currency"},
	{Name: "callbacks.cancel", Method: "/paygate.gateway.v1.TransactionService/CancelTransactionCallbacks", Title: "Cancel a transaction's callbacks",
		Targets: []string{"id"}},
	{Name: "bulk.start", Method: "/paygate.gateway.v1.BulkService/StartBulkRun", Title: "Start a bulk action over a filter",
		Targets: []string{"action"}, Count: "expectedCount"},
	{Name: "credentials.set", Method: "/paygate.gateway.v1.CredentialService/SetCredentials", Title: "Change a provider's credentials",
		Targets: []string{"collabId"}, Secrets: []string{"credentials"}, ReasonRequired: true},
	{Name: "fee.create", Method: "/paygate.gateway.v1.FeeService/CreateFee", Title: "Create a fee"},
	{Name: "fee.update", Method: "/paygate.gateway.v1.FeeService/UpdateFee", Title: "Change a fee", Targets: []string{"id"}},
	{Name: "fee.delete", Method: "/paygate.gateway.v1.FeeService/DeleteFee", Title: "Delete a fee", Targets: []string{"id"}},
	{Name: "maintenance.enable", Method: "/paygate.gateway.v1.MaintenanceService/EnableMaintenanceMode", Title: "Turn maintenance mode on"},
	{Name: "maintenance.disable", Method: "/paygate.gateway.v1.MaintenanceService/DisableMaintenanceMode", Title: "Turn maintenance mode off"},
	{Name: "maintenance.enable", Method: "/paygate.gateway.v1.CollabService/EnableMaintenanceMode", Title: "Turn maintenance mode on"},
	{Name: "maintenance.disable", Method: "/paygate.gateway.v1.CollabService/DisableMaintenanceMode", Title: "Turn maintenance mode off"},
	{Name: "collab.set_active", Method: "/paygate.gateway.v1.CollabService/SetCollabActiveness", Title: "Enable or disable a collab", Targets: []string{"collabId"}},
	{Name: "provider.set_active", Method: "/paygate.gateway.v1.CollabService/SetProviderActiveness", Title: "Enable or disable a provider", Targets: []string{"providerId"}},
	{Name: "settings.set", Method: "/paygate.gateway.v1.SettingService/SetSetting", Title: "Change a setting", Targets: []string{"key"}},
	{Name: "job.set_enabled", Method: "/paygate.aggregator.v1.JobService/SetJobEnabled", Title: "Switch a background job on or off", Targets: []string{"name"}},
	{Name: "user.update", Method: "/paygate.auth.v1.UserService/UpdateUser", Title: "Change a user's role, merchants or status", Targets: []string{"userId"}},
	{Name: "allowed_ip.create", Method: "/paygate.auth.v1.AllowedIpService/CreateAllowedIp", Title: "Add an allowed IP address", Targets: []string{"userId"}},
	{Name: "allowed_ip.update", Method: "/paygate.auth.v1.AllowedIpService/UpdateAllowedIp", Title: "Change an allowed IP address", Targets: []string{"id"}},
	{Name: "allowed_ip.delete", Method: "/paygate.auth.v1.AllowedIpService/DeleteAllowedIp", Title: "Remove an allowed IP address", Targets: []string{"id"}},
	{Name: "role.create", Method: "/paygate.auth.v1.RoleService/CreateRole", Title: "Create a role"},
	{Name: "role.update", Method: "/paygate.auth.v1.RoleService/UpdateRole", Title: "Change a role's name or permissions", Targets: []string{"id"}},
	{Name: "role.delete", Method: "/paygate.auth.v1.RoleService/DeleteRole", Title: "Delete a role", Targets: []string{"id"}},
	{Name: "approval.approve", Method: "/paygate.auth.v1.ApprovalService/ApproveRequest", Title: "Approve a pending change", Targets: []string{"id"}, AlwaysStepUp: true},
}

// ByMethod returns the action a full gRPC method performs.
func ByMethod(method string) (Action, bool) {
	i := slices.IndexFunc(Catalogue, func(a Action) bool { return a.Method == method })
	if i < 0 {
		return Action{}, false
	}
	return Catalogue[i], true
}

// ByName returns the first action of that name (an action may have several methods).
func ByName(name string) (Action, bool) {
	i := slices.IndexFunc(Catalogue, func(a Action) bool { return a.Name == name })
	if i < 0 {
		return Action{}, false
	}
	return Catalogue[i], true
}

// Names lists every action's name once, in catalogue order.
func Names() []string {
	var out []string
	for _, a := range Catalogue {
		if !slices.Contains(out, a.Name) {
			out = append(out, a.Name)
		}
	}
	return out
}
