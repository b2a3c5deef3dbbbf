function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#f8f4ea");
  brush.noStroke();
  brush.fill("#d9c8ae", 80);
  brush.rect(0, 440, 600, 160);
  brush.fill("#457b9d", 140);
  brush.fillBleed(0.15);
  brush.fillTexture(0.5, 0.7);
  brush.beginShape(0.7);
  brush.vertex(260, 200); brush.vertex(340, 200); brush.vertex(330, 260); brush.vertex(390, 360);
  brush.vertex(350, 470); brush.vertex(250, 470); brush.vertex(210, 360); brush.vertex(270, 260);
  brush.endShape(true);
  brush.set("rotring", "#1d3557", 1);
  brush.spline([[260, 200], [250, 120], [200, 80]], 0.5);
  brush.spline([[300, 200], [305, 100], [320, 60]], 0.5);
  brush.spline([[335, 200], [370, 130], [420, 110]], 0.5);
  brush.noStroke();
  brush.fill("#e76f51", 140);
  brush.circle(200, 80, 30, 0.5);
  brush.circle(320, 60, 34, 0.5);
  brush.circle(420, 110, 28, 0.5);
  brush.set("HB", "#3d3d3d", 1);
  brush.arc(300, 470, 60, 180, 360);
}
