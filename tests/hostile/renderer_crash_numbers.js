// hostile: finite numbers the renderer cannot paint (a 1e20 stroke weight; an arc spanning -1e308 to 1e308 degrees)
// expect: limit=none reason=invalid call
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() { brush.set("HB", "#000000", 1e20); brush.line(10, 10, 500, 500); brush.arc(300, 300, 100, -1e308, 1e308); }
