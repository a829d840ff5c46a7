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
