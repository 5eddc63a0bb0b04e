// Search runs in a web worker, which browsers do not start for a page opened from a file:
// say so where the search box would be, rather than leave it silently missing.
document.addEventListener("DOMContentLoaded", function () {
  if (window.location.protocol !== "file:") return;
  var notice = document.createElement("p");
  notice.className = "tg-file-notice";
  notice.setAttribute("role", "note");
  notice.textContent = "Search is unavailable on a site opened from files: serve the folder over HTTP " +
    "(python -m http.server, then open http://localhost:8000/) to search it.";
  var content = document.querySelector(".md-content__inner") || document.body;
  content.insertBefore(notice, content.firstChild);
});
