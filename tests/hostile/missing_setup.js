// hostile: no setup() (so no canvas)
// expect: limit=none reason=missing skeleton
function draw() { brush.fill("#d7263d", 200); brush.circle(300, 300, 100); }
