// Enhancements only: every page works without this file.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // Times are written in UTC by the server; show them in the reader's own time zone.
  for (const time of document.querySelectorAll("time[datetime]")) {
    const date = new Date(time.getAttribute("datetime"));
    if (!isNaN(date)) {
      time.textContent = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
      time.title = date.toISOString();
    }
  }
  // The resend button waits out the cooldown the server enforces anyway.
  const button = document.querySelector("button[data-wait]");
  const counter = document.querySelector("[data-countdown]");
  let left = button ? parseInt(button.dataset.wait || "0", 10) : 0;
  if (button && left > 0) {
    button.disabled = true;
    const timer = setInterval(() => {
      left -= 1;
      if (counter) counter.textContent = String(Math.max(left, 0));
      if (left <= 0) {
        clearInterval(timer);
        button.disabled = false;
        const hint = document.getElementById("resend-hint");
        if (hint) hint.textContent = "You can ask for a new code now.";
      }
    }, 1000);
  }
});

// A form being sent says so, and a second click (or Enter) sends nothing more: the answer is on its way.
// The button is not disabled, which would drop its name and value from the form being sent; the server
// treats a repeat as the same request anyway (a post's key, the code step's cooldown).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.dataset.passkey || event.defaultPrevented) return;
  if (form.getAttribute("aria-busy") === "true") {
    event.preventDefault();
    return;
  }
  form.setAttribute("aria-busy", "true");
  const button = event.submitter || form.querySelector("button");
  if (button) {
    button.dataset.pending = button.textContent;
    button.setAttribute("aria-disabled", "true");
    button.textContent = "Sending…";
  }
});

// Recovery codes: copy them all, or print the page (the download link works without this file).
document.addEventListener("DOMContentLoaded", () => {
  const codes = [...document.querySelectorAll("[data-recovery-codes] code")].map((code) => code.textContent);
  const copy = document.querySelector("[data-copy-codes]");
  const said = document.querySelector("[data-copied]");
  if (copy && codes.length && navigator.clipboard) {
    copy.hidden = false;
    copy.addEventListener("click", () => {
      navigator.clipboard.writeText(codes.join("\n") + "\n").then(
        () => { if (said) said.textContent = "Copied: paste them into your password manager."; },
        () => { if (said) said.textContent = "Could not copy; select the codes or download them instead."; });
    });
  }
  const print = document.querySelector("[data-print]");
  if (print) {
    print.hidden = false;
    print.addEventListener("click", () => window.print());
  }
});

// Codes shown once stay shown once: leaving the page wipes them from it, so the copy the browser keeps for
// Back holds none, and coming back asks the server again (which has none to show, and says so).
window.addEventListener("pagehide", () => {
  for (const list of document.querySelectorAll("[data-recovery-codes]")) list.replaceChildren();
});
window.addEventListener("pageshow", (event) => {
  if (event.persisted && document.querySelector("[data-recovery-codes]")) location.reload();
});

// Back to a page kept in the browser's memory: its forms can be sent again.
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  for (const form of document.querySelectorAll('form[aria-busy="true"]')) {
    form.removeAttribute("aria-busy");
    for (const button of form.querySelectorAll("button[data-pending]")) {
      button.textContent = button.dataset.pending;
      button.removeAttribute("aria-disabled");
      delete button.dataset.pending;
    }
  }
});

// Passkeys: shown only where the browser has WebAuthn. Each ceremony posts the page's token for its
// options, asks the browser for a credential, and submits the form it belongs to with the credential
// as JSON (the form's answer is a redirect, as every form's is).
const base64url = {
  decode(text) {
    const plain = text.replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(plain + "===".slice((plain.length + 3) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
  },
  encode(buffer) {
    let binary = "";
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
};

const passkeyOptions = {
  create(json) {
    return {
      ...json,
      challenge: base64url.decode(json.challenge),
      user: { ...json.user, id: base64url.decode(json.user.id) },
      excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: base64url.decode(c.id) })),
    };
  },
  get(json) {
    return {
      ...json,
      challenge: base64url.decode(json.challenge),
      allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: base64url.decode(c.id) })),
    };
  },
};

// PublicKeyCredential.toJSON() where the browser has it; the same fields written out where it does not.
function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: base64url.encode(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = base64url.encode(r.attestationObject);
    if (typeof r.getTransports === "function") response.transports = r.getTransports();
  } else {
    response.authenticatorData = base64url.encode(r.authenticatorData);
    response.signature = base64url.encode(r.signature);
    if (r.userHandle) response.userHandle = base64url.encode(r.userHandle);
  }
  return {
    id: credential.id, rawId: base64url.encode(credential.rawId), type: credential.type, response,
    authenticatorAttachment: credential.authenticatorAttachment || undefined, clientExtensionResults: {},
  };
}

async function fetchPasskeyOptions(form) {
  const body = new URLSearchParams({ csrf: form.dataset.optionsCsrf });
  if (form.dataset.codeFrom) body.set("code", (document.getElementById(form.dataset.codeFrom) || {}).value || "");
  const answer = await fetch(form.dataset.options, { method: "POST", body, credentials: "same-origin", headers: { Accept: "application/json" } });
  const json = await answer.json().catch(() => ({}));
  // Adding a passkey takes a recent proof: "Confirm it is you" offers one, then comes back.
  if (json.error === "step_up_required" || json.error === "sign_in_again") {
    location.assign("/account/verify?next=" + encodeURIComponent(location.pathname));
    return new Promise(() => {});
  }
  if (!answer.ok) throw new Error(json.message || "The server did not answer; try again.");
  return json;
}

function passkeyFailure(error) {
  if (error && error.name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
  if (error && error.name === "InvalidStateError") return "This device already holds a passkey for your account.";
  if (error && error.name === "AbortError") return null;
  return (error && error.message) || "The passkey did not work; try again.";
}

function submitCredential(form, credential) {
  form.elements.credential.value = JSON.stringify(credentialJSON(credential));
  form.submit();
}

let conditionalRequest = null;

// A passkey made at an origin the server does not accept would be refused after the device kept it: the
// page checks first, and says where passkeys work.
function wrongOrigin(form) {
  const origins = (form.dataset.origins || "").split(" ").filter(Boolean);
  if (origins.length === 0 || origins.includes(location.origin)) return null;
  return "Passkeys do not work at this address (" + location.origin + "). Open " + origins[0] + " to use them.";
}

async function passkeyCeremony(form) {
  const shown = form.querySelector("[data-passkey-error]");
  if (shown) shown.hidden = true;
  if (form.getAttribute("aria-busy") === "true") return;
  const elsewhere = wrongOrigin(form);
  if (elsewhere) {
    if (shown) {
      shown.textContent = elsewhere;
      shown.hidden = false;
    }
    return;
  }
  form.setAttribute("aria-busy", "true");
  try {
    if (conditionalRequest) conditionalRequest.abort();
    const options = await fetchPasskeyOptions(form);
    const credential =
      form.dataset.passkey === "create"
        ? await navigator.credentials.create({ publicKey: passkeyOptions.create(options) })
        : await navigator.credentials.get({ publicKey: passkeyOptions.get(options) });
    submitCredential(form, credential);
  } catch (error) {
    form.removeAttribute("aria-busy");
    const message = passkeyFailure(error);
    if (shown && message) {
      shown.textContent = message;
      shown.hidden = false;
    }
  }
}

// AutoFill: the sign-in page offers the browser's passkeys in its email fields' suggestions.
async function passkeyAutofill(form) {
  if (wrongOrigin(form) || !(await PublicKeyCredential.isConditionalMediationAvailable?.())) return;
  conditionalRequest = new AbortController();
  try {
    const options = await fetchPasskeyOptions(form);
    const credential = await navigator.credentials.get({
      publicKey: passkeyOptions.get(options), mediation: "conditional", signal: conditionalRequest.signal,
    });
    if (credential) submitCredential(form, credential);
  } catch (_) {
    // Cancelled for the button's own request, or refused: the button still works.
  }
}

document.addEventListener("DOMContentLoaded", () => {
  if (!window.PublicKeyCredential || !navigator.credentials) return;
  for (const element of document.querySelectorAll("[data-passkey-only], form[data-passkey]")) element.hidden = false;
  for (const form of document.querySelectorAll("form[data-passkey]")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      passkeyCeremony(form);
    });
  }
  const signIn = document.querySelector('form[data-passkey="get"][data-autofill]');
  if (signIn) passkeyAutofill(signIn);
});
