// pencil and pen lines, a hatched rectangle, a spline and an arc
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  brush.set("2B", "#2b2d42", 1.5);
  for (let i = 0; i < 8; i++) brush.line(60, 60 + i * 20, 540, 80 + i * 22);
  brush.set("pen", "#8d0801", 1);
  brush.spline([[60, 420], [200, 330], [340, 470], [540, 380]], 0.6);
  brush.arc(300, 300, 120, 200, 340);
  brush.noStroke();
  brush.hatch(8, 30);
  brush.hatchStyle("HB", "#003049", 1);
  brush.rect(120, 460, 360, 110);
  brush.noHatch();
  brush.set("marker", "#f77f00", 2);
  brush.line(80, 300, 520, 300);
}
