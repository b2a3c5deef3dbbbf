// hostile: tries to read local files with p5 loaders
// expect: limit=none reason=forbidden global loadStrings
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { const t = loadStrings("/etc/passwd"); loadJSON("file:///etc/hostname"); brush.circle(300, 300, t.length); }
