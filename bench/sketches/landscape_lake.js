function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fdf8ef");
  brush.noStroke();
  brush.fillTexture(0.4, 0.4);
  brush.fillBleed(0.15);
  brush.fill("#a8c5e2", 90);
  brush.rect(0, 0, 600, 260);
  brush.fill("#7d8fb3", 120);
  brush.beginShape(0.2);
  brush.vertex(0, 300); brush.vertex(120, 150); brush.vertex(220, 240);
  brush.vertex(330, 120); brush.vertex(470, 260); brush.vertex(600, 180);
  brush.vertex(600, 320); brush.vertex(0, 320);
  brush.endShape(true);
  brush.fill("#4f7cac", 120);
  brush.fillBleed(0.35);
  brush.rect(0, 320, 600, 280);
  brush.fill("#5a7d4a", 140);
  brush.fillBleed(0.2);
  brush.beginShape(0.5);
  brush.vertex(0, 300); brush.vertex(200, 280); brush.vertex(380, 310);
  brush.vertex(600, 290); brush.vertex(600, 345); brush.vertex(0, 345);
  brush.endShape(true);
  brush.set("2H", "#ffffff", 2);
  for (let i = 0; i < 8; i++) brush.line(60 + i * 60, 400 + (i % 3) * 40, 110 + i * 60, 400 + (i % 3) * 40);
}
