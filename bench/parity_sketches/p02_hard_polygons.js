// straight-edged overlapping polygons (curvature 0)
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  brush.noStroke();
  brush.fill("#3d5a80", 140);
  brush.fillBleed(0.1);
  brush.fillTexture(0.4, 0.4);
  brush.beginShape(0);
  brush.vertex(60, 80); brush.vertex(420, 60); brush.vertex(380, 330); brush.vertex(90, 300);
  brush.endShape(true);
  brush.fill("#ee6c4d", 130);
  brush.beginShape(0);
  brush.vertex(250, 220); brush.vertex(540, 260); brush.vertex(500, 540); brush.vertex(220, 500);
  brush.endShape(true);
  brush.fill("#98c1d9", 170);
  brush.beginShape(0);
  brush.vertex(40, 420); brush.vertex(200, 360); brush.vertex(260, 560);
  brush.endShape(true);
}
