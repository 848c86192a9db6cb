# shellcheck shell=bash
# The payment of the smoke flows, sourced by deploy/images/smoke.sh (make images-test) and
# deploy/local/compat.sh (make compat). The script that sources it defines log MESSAGE and
# die MESSAGE (which exits), and needs curl and jq.

# api METHOD URL [JSON]: the body of a JSON call with $TOKEN (when set); dies on a status other
# than 2xx.
api() {
  local method="$1" url="$2" body="${3:-}" out status
  local args=(-sS --max-time 15 -X "$method" -H 'Content-Type: application/json' -w '\n%{http_code}')
  [[ -n "${TOKEN:-}" ]] && args+=(-H "Authorization: Bearer $TOKEN")
  [[ -n "$body" ]] && args+=(--data "$body")
  out="$(curl "${args[@]}" "$url")" || die "$method $url: curl failed"
  status="${out##*$'\n'}"
  out="${out%$'\n'*}"
  [[ "$status" == 2* ]] || die "$method $url answered $status: $out"
  printf '%s' "$out"
}

# pay_and_see_callback AUTH GATEWAY SANDBOX WAIT CLIENT: signs in at AUTH as the demo admin; adds the
# sandbox's demo merchant as a callback URL of the demo collab Acme Games - GoVip through GATEWAY
# (the callbacks service behind it); initializes a deposit of 150.00 PHP with the admin's token
# (clientId CLIENT); waits at most WAIT seconds until the demo merchant has received the
# transaction's callback with a valid signature. It sets TOKEN (the admin's), PROVIDER_ID,
# COLLAB_ID, TX_ID and CALLBACK (what the merchant received, as JSON).
pay_and_see_callback() {
  local auth="$1" gw="$2" sandbox="$3" wait="$4" client="$5" merchant_hash res i
  TOKEN=""
  TOKEN="$(api POST "$auth/api/v1/login" '{"username":"admin","password":"paygate-demo"}' | jq -r '.accessToken // empty')"
  [[ -n "$TOKEN" ]] || die "the admin's sign-in answered no accessToken"
  log "signed in as admin"

  merchant_hash="$(api GET "$gw/api/v1/merchants" | jq -r '.[] | select(.name == "Acme Games") | .hash')"
  PROVIDER_ID="$(api GET "$gw/api/v1/providers" | jq -r '.[] | select(.name == "GoVip") | .id')"
  COLLAB_ID="$(api GET "$gw/api/v1/merchant-collabs" |
    jq -r '.collabs[] | select(.merchant.name == "Acme Games" and .provider.name == "GoVip") | .id' | head -n1)"
  [[ -n "$merchant_hash" && -n "$PROVIDER_ID" && -n "$COLLAB_ID" ]] ||
    die "the demo data lacks Acme Games, GoVip or their collab (hash '$merchant_hash', provider '$PROVIDER_ID', collab '$COLLAB_ID')"
  local hook="$sandbox/merchant/callbacks"
  api POST "$gw/api/v1/callbacks" "$(jq -nc --argjson c "$COLLAB_ID" --arg u "$hook" '{collabId: $c, callbackUrl: $u, maxAttempts: 3}')" >/dev/null
  log "callback URL $hook added to collab $COLLAB_ID"

  res="$(api POST "$gw/api/v1/transactions/initialize" "$(jq -nc --arg n "$client-$(date +%s)-$$" --argjson p "$PROVIDER_ID" --arg h "$merchant_hash" --arg c "$client" \
    '{paymentData: {nonce: $n, amount: "150.00", currency: "PHP", providerId: $p, payType: "GCASH", providerTags: []},
      merchantData: {merchantHash: $h, clientId: $c, additionalData: {}}, cashIn: true}')")"
  TX_ID="$(jq -r '.id // empty' <<<"$res")"
  [[ -n "$TX_ID" ]] || die "initialize answered no transaction id: $res"
  log "initialized transaction $TX_ID ($(jq -r '.transactionStatusMessage // empty' <<<"$res"))"

  CALLBACK=""
  for ((i = 0; i < wait * 4; i++)); do
    CALLBACK="$(curl -fsS --max-time 5 "$sandbox/merchant/callbacks?transactionId=$TX_ID" |
      jq -c '[.callbacks[] | select(.signatureValid == true) | {webhookId, type, transactionStatus, answered, signatureValid}] | first // empty')" || true
    [[ -n "$CALLBACK" ]] && break
    sleep 0.25
  done
  [[ -n "$CALLBACK" ]] || die "no signed callback reached the demo merchant for transaction $TX_ID within ${wait}s"
  log "the demo merchant received transaction $TX_ID's callback, signature valid: $CALLBACK"
}
