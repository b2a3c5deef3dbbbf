function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fefcf6");
  brush.noStroke();
  brush.hatchStyle("HB", "#2b2d42", 1);
  brush.hatch(6, 30, { rand: 0.1, continuous: false });
  brush.rect(60, 60, 200, 200);
  brush.hatchStyle("2B", "#8d0801", 1.5);
  brush.hatch(8, -45, { continuous: true, gradient: 0.3 });
  brush.circle(420, 160, 110);
  brush.noHatch();
  brush.fill("#90be6d", 110);
  brush.hatch(5, 90, { rand: 0.2 });
  brush.hatchStyle("pen", "#283618", 1);
  brush.beginShape(0.4);
  brush.vertex(80, 360); brush.vertex(300, 330); brush.vertex(520, 420); brush.vertex(420, 550); brush.vertex(120, 530);
  brush.endShape(true);
}
