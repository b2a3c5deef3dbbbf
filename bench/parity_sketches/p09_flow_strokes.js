// strokes bent by a built-in field, and a hand-made stroke
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#ffffff");
  brush.field("curved");
  brush.set("charcoal", "#3a0ca3", 1.2);
  for (let i = 0; i < 10; i++) brush.flowLine(60, 60 + i * 45, 480, 0);
  brush.noField();
  brush.set("crayon", "#f72585", 1.5);
  brush.beginStroke("curve", 100, 520);
  brush.move(20, 150, 1.2);
  brush.move(-30, 200, 0.8);
  brush.endStroke(10, 1);
  brush.noStroke();
  brush.fill("#4cc9f0", 120);
  brush.circle(470, 470, 70);
}
