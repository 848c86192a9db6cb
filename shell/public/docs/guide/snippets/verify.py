"""Verify a Paygate callback (Standard Webhooks signature) in Python 3, standard library only.

In a handler, verify the raw body bytes before parsing the JSON:
    verify(secret, request.headers, raw_body)  # raises ValueError when not genuine

As a program (how Paygate's tests run it): the secret in PAYGATE_WEBHOOK_SECRET, the three
webhook-* headers in WEBHOOK_ID, WEBHOOK_TIMESTAMP and WEBHOOK_SIGNATURE, the raw body on
stdin; it prints "valid" or "invalid: <why>".
"""
import base64
import hashlib
import hmac
import os
import sys
import time

TOLERANCE_SECONDS = 5 * 60


def verify(secret, headers, raw_body, now=None):
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    msg_id = headers.get("webhook-id", "")
    ts = headers.get("webhook-timestamp", "")
    if not ts.isdigit():
        raise ValueError("webhook-timestamp is not a number")
    now = int(time.time()) if now is None else now
    if abs(now - int(ts)) > TOLERANCE_SECONDS:
        raise ValueError("webhook-timestamp is too far from now")
    mac = hmac.new(key, f"{msg_id}.{ts}.".encode() + raw_body, hashlib.sha256)
    want = "v1," + base64.b64encode(mac.digest()).decode()
    # The header may carry several signatures (during a secret rotation).
    for sig in headers.get("webhook-signature", "").split():
        if hmac.compare_digest(sig, want):
            return
    raise ValueError("no signature matches")


if __name__ == "__main__":
    headers = {
        "webhook-id": os.environ.get("WEBHOOK_ID", ""),
        "webhook-timestamp": os.environ.get("WEBHOOK_TIMESTAMP", ""),
        "webhook-signature": os.environ.get("WEBHOOK_SIGNATURE", ""),
    }
    try:
        verify(os.environ.get("PAYGATE_WEBHOOK_SECRET", ""), headers, sys.stdin.buffer.read())
    except ValueError as e:
        print(f"invalid: {e}")
        sys.exit(1)
    print("valid")
